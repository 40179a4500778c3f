import type { EvaluationDetails, JsonValue } from '../src/index';
import { element, setText, shown } from './dom';

/** One row of the flag table: what the client serves for `key`, and how the panel got to it. */
export interface FlagRow {
  key: string;
  details: EvaluationDetails<JsonValue | undefined>;
  /** `false` for a key the app read that the snapshot has no flag for (served its fallback). */
  inSnapshot: boolean;
  /** Whether the panel overrides it. */
  overridden: boolean;
}

/** What a row's controls ask for. `override` answers with a message for a value it refused, else `null`. */
export interface RowActions {
  override(key: string, text: string): string | null;
  clear(key: string): void;
}

interface RowParts {
  row: HTMLTableRowElement;
  cells: Record<'value' | 'reason' | 'variation' | 'rule' | 'badge', HTMLElement>;
}

/** The flag table's rows, kept by key and updated in place: an override being typed survives every update. */
export function createFlagRows(body: HTMLTableSectionElement, actions: RowActions) {
  const rows = new Map<string, RowParts>();

  function create(key: string): RowParts {
    const cell = (role: string) => element('td', { 'data-role': role });
    const cells = { value: cell('value'), reason: cell('reason'), variation: cell('variation'), rule: cell('rule'), badge: element('span', { class: 'badge' }) };
    const input = element('input', { 'data-role': 'override', placeholder: 'JSON', 'aria-label': `override ${key}` });
    const error = element('span', { 'data-role': 'override-error', class: 'error' });
    const clear = element('button', { 'data-role': 'clear-override', title: 'clear the override' }, 'clear');
    input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      const refused = actions.override(key, input.value);
      input.setAttribute('aria-invalid', String(refused !== null));
      error.textContent = refused ?? '';
      if (refused === null) input.value = '';
    });
    clear.addEventListener('click', () => actions.clear(key));
    const name = element('td', { title: key }, key, cells.badge);
    const row = element('tr', { 'data-flag-key': key }, name, cells.value, cells.reason, cells.variation, cells.rule, element('td', { class: 'edit' }, input, clear, error));
    return { row, cells };
  }

  /** Shows `list` in its order; rows of keys no longer listed go; `visible` hides the rest (the search). */
  return function render(list: readonly FlagRow[], visible: (key: string) => boolean): void {
    const listed = new Set(list.map(({ key }) => key));
    for (const [key, parts] of rows) if (!listed.has(key)) (parts.row.remove(), rows.delete(key));
    for (const [index, { key, details, inSnapshot, overridden }] of list.entries()) {
      let parts = rows.get(key);
      if (!parts) rows.set(key, (parts = create(key)));
      const { row, cells } = parts;
      setText(cells.value, shown(details.value));
      cells.value.title = cells.value.textContent ?? '';
      setText(cells.reason, details.errorCode ? `${details.reason} (${details.errorCode})` : details.reason);
      setText(cells.variation, String(details.variationKey ?? details.variation ?? '—'));
      setText(cells.rule, details.ruleId ?? '—');
      setText(cells.badge, overridden ? 'overridden' : inSnapshot ? '' : 'not in snapshot');
      cells.badge.hidden = !overridden && inSnapshot;
      row.classList.toggle('overridden', overridden);
      row.hidden = !visible(key);
      if (body.children[index] !== row) body.insertBefore(row, body.children[index] ?? null);
    }
  };
}
