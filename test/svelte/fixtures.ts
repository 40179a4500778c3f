import { cleanup } from '@testing-library/svelte';
import { afterEach, vi } from 'vitest';
import { createClient, type ClientOptions, type FlagsClient, type FlagSnapshot, type JsonValue } from '../../src/index';
import { BASE_URL, CLIENT_KEY } from '../helpers/client-harness';
import { createFakeTransport } from '../helpers/fake-transport';
import { servingFlag } from '../helpers/snapshots';

export { countListeners } from '../helpers/listener-count';

/** `a`, `b`, `c` serve the same value to everyone; `banner` serves 'pro' to `attributes.plan` 'pro', else 'everyone'. */
export function snapshotV(version: number, values: { a?: JsonValue; b?: JsonValue; c?: JsonValue } = {}): FlagSnapshot {
  const banner = servingFlag('everyone', {
    variations: ['everyone', 'pro'],
    fallthrough: { variation: 0 },
    rules: [{ id: 'plan-pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
  });
  const flags = { a: servingFlag(values.a ?? 'a1'), b: servingFlag(values.b ?? 'b1'), c: servingFlag(values.c ?? 'c1'), banner };
  return { schemaVersion: 1, version, environmentId: 'production', flags };
}

/** Clients a test made; closed after it. */
const clients: FlagsClient[] = [];

/** After each test: unmount what Testing Library rendered, empty the page, undo spies, close the clients. */
export function useAutoCleanup(): void {
  afterEach(async () => {
    cleanup();
    document.body.innerHTML = '';
    vi.restoreAllMocks();
    for (const client of clients.splice(0)) await client.close();
  });
}

/** A client on a transport that never answers, serving `bootstrap` from the start; no storage, no events. */
export function hangingClient(bootstrap: FlagSnapshot = snapshotV(1), extra: Partial<ClientOptions> = {}): FlagsClient {
  const transport = createFakeTransport(() => 'hang').transport;
  const client = createClient({ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, transport, bootstrap, persist: false, events: false, ...extra });
  clients.push(client);
  return client;
}

/**
 * What the readers' templates were given: `seen(name, value)` is called by the template
 * expression, so it runs once at mount and again only when Svelte updates that text.
 */
export function recorder() {
  const counts: Record<string, number> = {};
  const seen = (name: string, value: JsonValue | undefined): string => {
    counts[name] = (counts[name] ?? 0) + 1;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  return { counts, seen };
}
