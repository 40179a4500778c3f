import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { useFlag, useFlagDetails, useFlags, useFlagsStatus } from '../../react/index';
import type { Flag, FlagsClient, FlagSnapshot, JsonValue } from '../../src/index';
import { servingFlag } from '../helpers/snapshots';

/**
 * Options every test client gets: no localStorage (happy-dom keeps it across the tests of
 * a file) and no diagnostic events (their last flush on close would wait on a hanging
 * transport, and their POSTs would blur the request counts).
 */
export const QUIET = { persist: false, events: false } as const;

/** Renders per component name; incremented in render, so it counts renders exactly. */
export type RenderCounts = Record<string, number>;

export function useAutoCleanup(clients: FlagsClient[]): void {
  // No vitest globals, so Testing Library cannot register its own cleanup.
  afterEach(async () => {
    cleanup();
    for (const client of clients.splice(0)) await client.close();
  });
}

export function FlagText({ flag, counts, fallback }: { flag: string; counts: RenderCounts; fallback?: JsonValue }) {
  counts[flag] = (counts[flag] ?? 0) + 1;
  const value = fallback === undefined ? useFlag(flag) : useFlag(flag, fallback);
  return <span data-testid={flag}>{JSON.stringify(value)}</span>;
}

export function DetailsText({ flag, counts, fallback }: { flag: string; counts: RenderCounts; fallback: JsonValue }) {
  counts[`details:${flag}`] = (counts[`details:${flag}`] ?? 0) + 1;
  const details = useFlagDetails(flag, fallback);
  return <span data-testid={`details:${flag}`}>{`${JSON.stringify(details.value)} ${details.reason} ${details.errorCode ?? '-'}`}</span>;
}

export function AllFlags({ counts }: { counts: RenderCounts }) {
  counts.all = (counts.all ?? 0) + 1;
  return <pre data-testid="all">{JSON.stringify(useFlags())}</pre>;
}

export function StatusText({ counts }: { counts: RenderCounts }) {
  counts.status = (counts.status ?? 0) + 1;
  const { status, connection, source, version } = useFlagsStatus();
  return <span data-testid="status">{`${status}/${connection}/${source}/${version}`}</span>;
}

const planRule = (plan: string, variation: number): Flag['rules'][number] => ({
  id: `plan-${plan}`,
  conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: [plan] }],
  serve: { variation },
});

/** `banner` depends on `attributes.plan`; `a`, `b`, `c` serve the same value to everyone. */
export function snapshotV(version: number, values: { a?: JsonValue; b?: JsonValue; c?: JsonValue } = {}): FlagSnapshot {
  return {
    schemaVersion: 1,
    version,
    environmentId: 'production',
    flags: {
      a: servingFlag(values.a ?? 'a1'),
      b: servingFlag(values.b ?? 'b1'),
      c: servingFlag(values.c ?? 'c1'),
      banner: { ...servingFlag('everyone'), variations: ['everyone', 'pro'], fallthrough: { variation: 0 }, rules: [planRule('pro', 1)] },
    },
  };
}
