import type { EvaluationContext } from '../src/index';
import { element, setText } from './dom';
import { createFlagRows, type FlagRow, type RowActions } from './flag-rows';
import { PANEL_STYLES } from './panel-styles';
import type { StatusLog } from './status-log';

/** Everything the panel shows at one moment. */
export interface PanelModel {
  rows: readonly FlagRow[];
  log: StatusLog;
  context: EvaluationContext;
}

export interface PanelActions extends RowActions {
  clearAll(): void;
  close(): void;
  /** The search changed: show the rows again. */
  searched(): void;
}

const time = (at: number | null) => (at === null ? '—' : new Date(at).toLocaleTimeString());

/**
 * The `<flagplane-devtools>` element: an open shadow root holding the styles and the panel.
 * Not a registered custom element: `customElements.define` cannot be undone, and the panel
 * needs no lifecycle callbacks.
 */
export function createPanelView(actions: PanelActions) {
  const host = document.createElement('flagplane-devtools');
  const root = host.attachShadow({ mode: 'open' });
  const summary = element('span', { class: 'summary', 'data-role': 'summary' });
  const status = element('dl', { 'data-role': 'status' });
  const errors = element('ol', { 'data-role': 'errors' });
  const search = element('input', { 'data-role': 'search', type: 'search', placeholder: 'search flags', 'aria-label': 'search flags' });
  const body = element('tbody', { 'data-role': 'flags' });
  const close = element('button', { 'data-role': 'close', title: 'close (the hotkey toggles)' }, 'close');
  const clearAll = element('button', { 'data-role': 'clear-all' }, 'clear all overrides');
  const heading = element('tr', {}, ...['flag', 'value', 'reason', 'variation', 'rule', 'override'].map((name) => element('th', {}, name)));
  const panel = element(
    'div',
    { class: 'panel', role: 'dialog', 'aria-label': 'flagplane devtools' },
    element('header', {}, element('strong', {}, 'flagplane'), summary, close),
    element('section', {}, status, errors),
    element('div', { class: 'tools' }, search, clearAll),
    element('table', {}, element('thead', {}, heading), body),
    element('p', { class: 'note' }, 'Events are not shown: the client does not expose its event buffer.'),
  );
  root.append(element('style', {}, PANEL_STYLES), panel);
  host.hidden = true;
  close.addEventListener('click', actions.close);
  clearAll.addEventListener('click', actions.clearAll);
  search.addEventListener('input', actions.searched);
  const renderRows = createFlagRows(body, actions);

  function renderStatus({ log, context }: PanelModel): void {
    const { status: current } = log;
    const entries: Array<[string, string]> = [
      ['status', current?.status ?? '—'],
      ['connection', current?.connection ?? '—'],
      ['snapshot', current?.version == null ? '—' : `version ${current.version} from ${current.source}`],
      ['snapshot changed', time(log.snapshotAt)],
      ['last error', log.errors[0] ? `${time(log.errors[0].at)}${current?.error ? '' : `, recovered ${time(log.recoveredAt)}`}` : 'none'],
      ['context', JSON.stringify(context)],
    ];
    status.replaceChildren(...entries.flatMap(([name, value]) => [element('dt', {}, name), element('dd', { 'data-role': `status-${name.replace(' ', '-')}` }, value)]));
    errors.replaceChildren(...log.errors.map(({ error, at }) => element('li', {}, `${time(at)} ${error.code}: ${error.message}`)));
    setText(summary, `${current?.status ?? ''} · ${current?.connection ?? ''} · v${current?.version ?? '—'}`);
  }

  return {
    host,
    /** Shows `model`; rows whose key does not contain the search text are hidden. */
    render(model: PanelModel): void {
      const wanted = search.value.trim().toLowerCase();
      renderStatus(model);
      renderRows(model.rows, (key) => key.toLowerCase().includes(wanted));
    },
  };
}
