import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client';
import { ConfigError } from '../../src/shared/errors';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { jsonResponse, snapshotServer, response } from '../helpers/fake-transport';
import { BASE_URL, CLIENT_KEY, harness, servedHarness } from '../helpers/client-harness';
import { servingFlag, snapshotOf } from '../helpers/snapshots';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('reads never throw', () => {
  it('serve the configured defaults, or the call fallback, before any snapshot', async () => {
    const { client } = harness(() => 'hang', { defaults: { 'new-checkout': false, theme: 'light' } });
    expect(client.get('new-checkout')).toBe(false);
    expect(client.get('theme', 'dark')).toBe('dark');
    expect(client.get('unknown')).toBeUndefined();
    expect(client.get('unknown', 42)).toBe(42);
    expect(client.getAll()).toEqual({ 'new-checkout': false, theme: 'light' });
    await client.close();
  });

  it('serve the default for unknown keys and a malformed flag, and the value otherwise', async () => {
    const snapshot: FlagSnapshot = {
      ...snapshotOf(1, { theme: 'dark' }),
      flags: { theme: servingFlag('dark'), broken: servingFlag('x', { fallthrough: { variation: 9 } }) },
    };
    const { client } = harness(() => jsonResponse(200, snapshot), { defaults: { theme: 'light', broken: 'safe', missing: 'm' } });
    await client.ready();
    expect(client.get('theme')).toBe('dark');
    expect(client.get('broken')).toBe('safe');
    expect(client.get('missing')).toBe('m');
    expect(client.getAll()).toEqual({ theme: 'dark', broken: 'safe', missing: 'm' });
    await client.close();
  });

  it('serve the default when the served value has another JSON type than the default', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { flag: 'yes', list: { not: 'a list' } })), {
      defaults: { flag: false, list: [] as string[] },
    });
    await client.ready();
    expect(client.get('flag')).toBe(false);
    expect(client.get('list')).toEqual([]);
    expect(client.get('flag', 'a string fallback')).toBe('yes');
    await client.close();
  });

  it('keep answering from the last snapshot after close', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 'kept' })));
    await client.ready();
    await client.close();
    expect(client.get('a')).toBe('kept');
    expect(client.get('b', 'fb')).toBe('fb');
  });

  it('survive hostile keys and snapshots', async () => {
    const snapshot = snapshotOf(1, {}) as FlagSnapshot;
    (snapshot.flags as Record<string, unknown>)['weird'] = { on: true };
    (snapshot.flags as Record<string, unknown>)['null'] = null;
    const { client } = harness(() => jsonResponse(200, snapshot), { defaults: { weird: 1 } });
    await client.ready();
    for (const key of ['weird', 'null', '__proto__', 'constructor', 'toString', '', 'hasOwnProperty']) {
      expect(() => client.get(key)).not.toThrow();
      expect(() => client.get(key, 'fb')).not.toThrow();
    }
    expect(client.get('weird')).toBe(1);
    expect(client.get('__proto__', 'fb')).toBe('fb');
    expect(client.get('__proto__')).toBeUndefined();
    expect(client.get('toString')).toBeUndefined();
    expect(() => client.getAll()).not.toThrow();
    await client.close();
  });

  it('typed defaults type get()', async () => {
    const { client } = harness(() => 'hang', { defaults: { enabled: false, limit: 10 } });
    const enabled: boolean = client.get('enabled');
    const limit: number = client.get('limit');
    expect([enabled, limit]).toEqual([false, 10]);
    await client.close();
  });
});

describe('configuration errors are the only throw', () => {
  it.each([
    [{ sdkKey: 'nope', baseUrl: BASE_URL }, /sdkKey/],
    [{ sdkKey: 'svc_sdk_admin_12345678', baseUrl: BASE_URL }, /sdkKey/],
    [{ sdkKey: CLIENT_KEY, baseUrl: 'flags.test' }, /baseUrl/],
    [{ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, pollInterval: -1 }, /pollInterval/],
    [{ sdkKey: CLIENT_KEY, baseUrl: BASE_URL, requestTimeout: Number.NaN }, /requestTimeout/],
  ])('%j', (options, message) => {
    expect(() => createClient(options as never)).toThrow(ConfigError);
    expect(() => createClient(options as never)).toThrow(message);
  });
});

describe('state and notifications', () => {
  it('notify with the changed keys only; an unchanged poll notifies nobody', async () => {
    const { client, server } = servedHarness(snapshotOf(1, { a: 1, b: { deep: [1, 2] }, c: 'same' }), { pollInterval: 1000 });
    const events: Array<{ changed: string[]; status: string }> = [];
    client.subscribe(({ changed, status }) => events.push({ changed: [...changed].sort(), status: status.status }));
    // Read before the first snapshot: each of them changes when it arrives.
    for (const key of ['a', 'b', 'c']) client.get(key);
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual([{ changed: ['a', 'b', 'c'], status: 'ready' }]);
    const before = { all: client.getAll(), status: client.getStatus(), b: client.get('b') };

    await vi.advanceTimersByTimeAsync(1000);
    expect(events).toHaveLength(1);
    expect(client.getAll()).toBe(before.all);

    server.publish(snapshotOf(2, { a: 2, b: { deep: [1, 2] }, c: 'same', d: true }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(events[1]).toEqual({ changed: ['a', 'd'], status: 'ready' });
    expect(client.get('b')).toBe(before.b);
    expect(client.getStatus()).not.toBe(before.status);
    expect(client.getStatus().version).toBe(2);
    await client.close();
  });

  it('a removed flag counts as changed', async () => {
    const { client, server } = servedHarness(snapshotOf(1, { a: 1, gone: true }), { pollInterval: 1000 });
    const changed: string[][] = [];
    client.subscribe((event) => changed.push([...event.changed]));
    await vi.advanceTimersByTimeAsync(0);
    client.get('gone');
    server.publish(snapshotOf(2, { a: 1 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(changed[1]).toEqual(['gone']);
    await client.close();
  });

  it('a throwing listener does not stop the others and is reported', async () => {
    const { client, errors } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })));
    const seen: number[] = [];
    client.subscribe(() => {
      throw new Error('listener bug');
    });
    client.subscribe(() => seen.push(1));
    await client.ready();
    expect(seen).toEqual([1]);
    expect(errors.map((error) => error.code)).toEqual(['listener']);
    await client.close();
  });

  it('unsubscribe stops notifications', async () => {
    const { client, server } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 1000 });
    const listener = vi.fn();
    const unsubscribe = client.subscribe(listener);
    await vi.advanceTimersByTimeAsync(0);
    unsubscribe();
    server.publish(snapshotOf(2, { a: 2 }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(listener).toHaveBeenCalledTimes(1);
    await client.close();
  });
});

describe('reads with hostile keys and values', () => {
  it('symbols, numbers and non-string keys never throw and serve the fallback', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { a: 1 })), { defaults: { a: 0 }, events: true });
    await client.ready();
    for (const key of [Symbol('x'), 42, null, undefined, {}, [], () => 1]) {
      expect(() => client.get(key as never)).not.toThrow();
      expect(client.get(key as never, 'fb')).toBe('fb');
      expect(() => client.getDetails(key as never)).not.toThrow();
    }
    await client.close();
  });

  it('defaults and fallbacks holding a BigInt or a cycle never make a read throw, with events on', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const big = 10n;
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { big: 1, cyclic: 'x' })), {
      defaults: { big, cyclic } as never,
      events: true,
      flushAt: 1,
    });
    expect(client.get('big')).toBe(big);
    await client.ready();
    // A type mismatch serves the default, which JSON cannot hold.
    expect(client.getDetails('big')).toMatchObject({ value: big, errorCode: 'TYPE_MISMATCH' });
    expect(client.get('cyclic')).toBe(cyclic);
    expect(client.get('missing', big as never)).toBe(big);
    expect(() => client.getAll()).not.toThrow();
    await client.close();
  });

  it('getAll() keeps a flag named __proto__ as a plain key and never turns it into the prototype', async () => {
    const snapshot = snapshotOf(1, { a: 1 });
    // JSON.parse makes `__proto__` an own key, as a server body would.
    const body = JSON.stringify(snapshot).replace('"flags":{', `"flags":{"__proto__":${JSON.stringify(servingFlag({ admin: true }))},`);
    const { client } = harness(() => response(200, body));
    await client.ready();
    expect(client.get('__proto__')).toEqual({ admin: true });
    const all = client.getAll();
    expect(Object.getPrototypeOf(all)).toBe(Object.prototype);
    expect((all as Record<string, unknown>).admin).toBeUndefined();
    expect(Object.keys(all).sort()).toEqual(['__proto__', 'a']);
    await client.close();
  });

  it('keys named like Object.prototype members are plain flags in get() and getAll()', async () => {
    const { client } = harness(() => jsonResponse(200, snapshotOf(1, { constructor: 'c', toString: 't', hasOwnProperty: 'h' })));
    await client.ready();
    expect(client.get('constructor')).toBe('c');
    expect(client.getAll()).toEqual({ constructor: 'c', toString: 't', hasOwnProperty: 'h' });
    await client.close();
  });
});

describe('identity stability across unrelated changes (React relies on it)', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });
  it('getDetails(a), get(a) and getAll() keep their identity across an override of b, a status-only change and a context change a ignores', async () => {
    const server = snapshotServer(snapshotOf(1, { a: { nested: [1, 2] }, b: 'b' }));
    let fail = false;
    const { client } = harness((request) => (fail ? response(503, '') : server.handler(request)), { pollInterval: 1000 });
    await client.ready();
    const details = client.getDetails('a');
    const value = client.get('a');
    const status = client.getStatus();
    const all = client.getAll();
    // Status only: a failed poll.
    fail = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.getStatus()).not.toBe(status);
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(details);
    // A context change that leaves every flag as it was.
    const afterFailure = client.getStatus();
    client.setContext({ userId: 'someone' });
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(details);
    expect(client.getStatus()).toBe(afterFailure);
    // An override of another key: a new getAll(), the same details and value for a.
    client.setOverrides({ b: 'mine' });
    expect(client.getAll()).not.toBe(all);
    expect(client.getAll()).toEqual({ a: { nested: [1, 2] }, b: 'mine' });
    expect(client.getDetails('a')).toBe(details);
    expect(client.get('a')).toBe(value);
    // A new snapshot that changes only b: a's value keeps its identity (its version moves on).
    fail = false;
    server.publish(snapshotOf(2, { a: { nested: [1, 2] }, b: 'b2' }));
    await vi.advanceTimersByTimeAsync(2000);
    expect(client.getStatus().version).toBe(2);
    expect(client.get('a')).toBe(value);
    await client.close();
  });
});
