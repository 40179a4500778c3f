/** A flag's variations with their keys: the list on the card, and the editor of both. */
import { useState } from 'react';
import type { Flag, JsonValue, WeightedVariation } from '../../src/index';
import { AdminError } from './api';
import { formatValue } from './flag-format';
import { Badge, EditorButtons, ErrorNote } from './ui';
import { useSubmit } from './use-action';

/** The flag's variation keys when they are a list of strings; a malformed member shows none. */
export function variationKeysOf(flag: Flag): readonly unknown[] {
  return Array.isArray(flag.variationKeys) ? flag.variationKeys : [];
}

export function VariationList({ flagKey, flag, variations }: { flagKey: string; flag: Flag; variations: readonly JsonValue[] }) {
  const keys = variationKeysOf(flag);
  return (
    <ul className="variations" data-testid={`variations-${flagKey}`}>
      {variations.map((value, index) => (
        <li key={index} className={servedNow(flag, index) ? 'served' : undefined}>
          <span className="index">{index}</span>
          {keys[index] !== undefined ? (
            <span className="variation-key" data-testid={`variation-key-${flagKey}-${index}`}>
              {String(keys[index])}
            </span>
          ) : null}
          <code>{formatValue(value, 60)}</code>
          {index === flag.offVariation ? <Badge tone="off">off</Badge> : null}
          {fallthroughShare(flag, index)}
        </li>
      ))}
    </ul>
  );
}

/** Whether everyone without a matching rule gets variation `index` right now. */
function servedNow(flag: Flag, index: number): boolean {
  if (!flag.on) return flag.offVariation === index;
  const serve = flag.fallthrough as { variation?: unknown; rollout?: unknown } | undefined;
  if (serve && 'variation' in serve) return serve.variation === index;
  return Array.isArray(serve?.rollout) && serve.rollout.some((slice: WeightedVariation) => slice?.variation === index && slice.weight > 0);
}

function fallthroughShare(flag: Flag, index: number) {
  const serve = flag.fallthrough as { variation?: unknown; rollout?: unknown } | undefined;
  if (serve && 'variation' in serve) return serve.variation === index ? <Badge tone="on">fallthrough</Badge> : null;
  if (!Array.isArray(serve?.rollout)) return null;
  const weight = (serve.rollout as WeightedVariation[]).filter((slice) => slice?.variation === index).reduce((sum, slice) => sum + (Number(slice.weight) || 0), 0);
  return weight ? <Badge tone="on">fallthrough {weight / 1000}%</Badge> : null;
}

interface Row {
  key: string;
  /** The value as JSON text. */
  value: string;
}

/**
 * The flag with `rows` as its variations and keys: keys all blank leave `variationKeys` out,
 * so a flag can go back to having none. Throws an AdminError for a value that is not JSON.
 */
function withVariations(flag: Flag, rows: readonly Row[]): Flag {
  const variations = rows.map((row, index) => {
    try {
      return JSON.parse(row.value) as JsonValue;
    } catch (error) {
      throw new AdminError(0, 'json', `variation ${index} is not JSON: ${(error as Error).message}`);
    }
  });
  const { variationKeys: _old, ...rest } = flag;
  const keyless = rows.every((row) => row.key.trim() === '');
  return keyless ? { ...rest, variations } : { ...rest, variations, variationKeys: rows.map((row) => row.key) };
}

/**
 * One row per variation: its key and its value (JSON). Only the last variation can be removed,
 * so no rule, rollout or off variation silently comes to point at another one.
 */
export function VariationsEditor(props: { flagKey: string; flag: Flag; onSave(flag: Flag): Promise<AdminError | null>; onCancel(): void }) {
  const { flagKey, flag, onSave, onCancel } = props;
  const keys = variationKeysOf(flag);
  const variations: unknown[] = Array.isArray(flag.variations) ? flag.variations : [];
  const [rows, setRows] = useState<Row[]>(() => variations.map((value, i) => ({ key: typeof keys[i] === 'string' ? (keys[i] as string) : '', value: JSON.stringify(value) })));
  const { error, pending, submit } = useSubmit(onSave);
  const edit = (index: number, change: Partial<Row>) => setRows((previous) => previous.map((row, i) => (i === index ? { ...row, ...change } : row)));

  const testId = `variations-editor-${flagKey}`;
  return (
    <div className="variations-editor" data-testid={testId}>
      <span className="label">variations: key and value (JSON)</span>
      {rows.map((row, index) => (
        <div key={index} className="row">
          <span className="index">{index}</span>
          <input aria-label={`key of variation ${index}`} placeholder="key" data-testid={`${testId}-key-${index}`} value={row.key} onChange={(event) => edit(index, { key: event.target.value })} />
          <input aria-label={`value of variation ${index}`} className="grow" data-testid={`${testId}-value-${index}`} value={row.value} onChange={(event) => edit(index, { value: event.target.value })} />
          {index === rows.length - 1 && rows.length > 1 ? (
            <button type="button" data-testid={`${testId}-remove`} onClick={() => setRows(rows.slice(0, -1))}>
              Remove
            </button>
          ) : null}
        </div>
      ))}
      <ErrorNote error={error} testId={`${testId}-error`} />
      <EditorButtons testId={testId} pending={pending} onSave={() => void submit(() => withVariations(flag, rows))} onCancel={onCancel}>
        <button type="button" data-testid={`${testId}-add`} onClick={() => setRows([...rows, { key: '', value: 'null' }])}>
          Add variation
        </button>
        <span className="spacer" />
      </EditorButtons>
    </div>
  );
}
