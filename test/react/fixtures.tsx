import { cleanup, screen } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { useFlag, useFlagDetails, useFlags, useFlagsStatus } from '../../react/index';
import type { ClientOptions, FlagsClient, FlagSnapshot, JsonValue } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport } from '../helpers/fake-transport';
import { snapshotV } from '../helpers/snapshots';

export { snapshotV };

/**
 * Options every test client gets: no localStorage (happy-dom keeps it across the tests of
 * a file) and no diagnostic events (their last flush on close would wait on a hanging
 * transport, and their POSTs would blur the request counts).
 */
export const QUIET = { persist: false, events: false } as const;

/** Renders per component name; incremented in render, so it counts renders exactly. */
export type RenderCounts = Record<string, number>;

/** Undo functions a test registers (a patched prototype, a global put back): run after each test, last first. */
export const restore: Array<() => void> = [];

/**
 * After each test: unmount what Testing Library rendered, empty the page, undo `vi` stubs and
 * spies and `restore`, clear localStorage, and close every client in `clientLists`.
 */
export function useAutoCleanup(...clientLists: FlagsClient[][]): void {
  // No vitest globals, so Testing Library cannot register its own cleanup.
  afterEach(async () => {
    cleanup();
    document.body.innerHTML = '';
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    for (const undo of restore.splice(0).reverse()) undo();
    localStorage.clear();
    for (const clients of clientLists) for (const client of clients.splice(0)) await client.close();
  });
}

export const text = (testId: string) => screen.getByTestId(testId).textContent;

/** console.error, captured: React reports tearing, uncached snapshots and hydration mismatches there. */
export function captureErrors() {
  return vi.spyOn(console, 'error').mockImplementation(() => {});
}

/** Options of a client on a transport that never answers, already serving `bootstrap`. */
export function hangingClientOptions(extra: Partial<ClientOptions> = {}, bootstrap: FlagSnapshot = snapshotV(1)): ClientOptions {
  return {
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    transport: createFakeTransport(() => 'hang').transport,
    bootstrap,
    ...QUIET,
    ...extra,
  };
}

/** A client on a transport that never answers, already serving `bootstrap`, created through the (mocked) core. */
export async function hangingClientFrom(bootstrap: FlagSnapshot = snapshotV(1), extra: Partial<ClientOptions> = {}): Promise<FlagsClient> {
  const { createClient } = await import('../../src/index');
  return createClient(hangingClientOptions(extra, bootstrap));
}

/** A hanging client serving snapshotV(1, values). */
export const hangingClientServing = (values: Parameters<typeof snapshotV>[1] = {}): Promise<FlagsClient> => hangingClientFrom(snapshotV(1, values));

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
