import { describe, expect, it, vi } from 'vitest';
import { StorageError } from '../../src/shared/errors';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { snapshotServer, jsonResponse } from '../helpers/fake-transport';
import { harness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('the snapshot cache', () => {
  it('a client created after a reload serves the cached values synchronously and sends the persisted ETag', async () => {
    const cache = createMemoryStorage();
    const server = snapshotServer(snapshotOf(4, { banner: 'cached' }));
    const first = harness(server.handler, { cache });
    await first.client.ready();
    await first.client.close();
    expect(cache.entries.size).toBe(1);
    expect([...cache.entries.values()][0]).not.toContain('svc_sdk_');

    const second = harness(server.handler, { cache });
    expect(second.client.get('banner')).toBe('cached');
    expect(second.client.getStatus()).toMatchObject({ status: 'ready', source: 'cache', version: 4 });
    await expect(second.client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    expect(second.requests[0]!.headers['if-none-match']).toBe('"snapshot-4"');
    await vi.advanceTimersByTimeAsync(0);
    expect(second.client.getStatus().source).toBe('network');
    await second.client.close();
  });

  it('ignores a snapshot cached by another key or with a newer schema', async () => {
    const cache = createMemoryStorage();
    const first = harness(snapshotServer(snapshotOf(4, { a: 'other key' })).handler, { cache, sdkKey: 'svc_sdk_server_other_key_01' });
    await first.client.ready();
    await first.client.close();
    const [storageKey, raw] = [...cache.entries][0]!;
    const second = harness(() => 'hang', { cache, storageKey: storageKey! });
    expect(second.client.get('a', 'default')).toBe('default');
    await second.client.close();

    const record = JSON.parse(raw!);
    record.snapshot.schemaVersion = 2;
    cache.set(storageKey!, JSON.stringify(record));
    const third = harness(() => 'hang', { cache, storageKey: storageKey!, sdkKey: 'svc_sdk_server_other_key_01' });
    expect(third.client.get('a', 'default')).toBe('default');
    await third.client.close();
  });

  it('corrupt JSON is reported as a StorageError and the client carries on', async () => {
    const cache = createMemoryStorage({ 'my-key': '{not json' });
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { cache, storageKey: 'my-key' });
    await client.ready();
    expect(errors[0]).toBeInstanceOf(StorageError);
    expect(client.get('a')).toBe(1);
    await client.close();
  });

  it('a storage that throws or rejects is reported and never breaks reads or ready()', async () => {
    const throwing: StorageAdapter = {
      get: () => {
        throw new Error('SecurityError: private mode');
      },
      set: () => Promise.reject(new Error('QuotaExceededError')),
      remove: () => undefined,
    };
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, { cache: throwing });
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/^reading "flagplane:snapshot:[0-9a-f]{16}" failed: SecurityError: private mode$/),
      expect.stringMatching(/^writing "flagplane:snapshot:[0-9a-f]{16}" failed: QuotaExceededError$/),
    ]);
    expect(errors.every((error) => error instanceof StorageError)).toBe(true);
    await client.close();
  });

  it('an async storage is read too, under version gating', async () => {
    const memory = createMemoryStorage();
    const seed = harness(snapshotServer(snapshotOf(3, { a: 'cached' })).handler, { cache: memory });
    await seed.client.ready();
    await seed.client.close();
    const slow: StorageAdapter = {
      get: (key) => new Promise((resolve) => setTimeout(() => resolve(memory.get(key) as string | null), 50)),
      set: (key, value) => memory.set(key, value),
      remove: (key) => memory.remove(key),
    };
    const { client } = harness(() => 'hang', { cache: slow });
    expect(client.get('a', 'default')).toBe('default');
    await vi.advanceTimersByTimeAsync(50);
    expect(client.get('a')).toBe('cached');
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    await client.close();
  });

  it('a storage that never answers does not delay ready() past readyTimeout', async () => {
    const never: StorageAdapter = { get: () => new Promise(() => undefined), set: () => undefined, remove: () => undefined };
    const { client } = harness(() => 'hang', { cache: never, readyTimeout: 1000 });
    const ready = client.ready();
    await vi.advanceTimersByTimeAsync(1000);
    await expect(ready).resolves.toEqual({ status: 'timeout', source: null });
    await client.close();
  });
});

describe('a cache holding garbage', () => {
  const KEY = 'garbage-key';
  it.each([
    ['a number', '42'],
    ['null', 'null'],
    ['an array', '[1,2,3]'],
    ['a record without snapshot', '{"format":1}'],
    ['a record of another format', '{"format":2,"snapshot":{}}'],
  ])('%s is a miss: no error, defaults served, the network decides', async (_name, raw) => {
    const cache = createMemoryStorage({ [KEY]: raw });
    const { client, errors, requests } = harness(() => jsonResponse(200, snapshotOf(1, { a: 'net' })), { cache, storageKey: KEY, defaults: { a: 'd' } });
    expect(client.get('a')).toBe('d');
    expect(client.getStatus().status).toBe('initializing');
    expect(requests[0]!.headers['if-none-match']).toBeUndefined();
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(errors).toEqual([]);
    await client.close();
  });

  it('an old cached version never replaces a newer bootstrap, and its ETag is not sent', async () => {
    const memory = createMemoryStorage();
    const seed = harness(() => jsonResponse(200, snapshotOf(2, { a: 'cached v2' }), { etag: '"snapshot-2"' }), { cache: memory });
    await seed.client.ready();
    await seed.client.close();
    const { client, requests } = harness(() => 'hang', { cache: memory, bootstrap: snapshotOf(7, { a: 'boot v7' }) });
    expect(client.get('a')).toBe('boot v7');
    expect(client.getStatus()).toMatchObject({ source: 'bootstrap', version: 7 });
    expect(requests[0]!.headers['if-none-match']).toBeUndefined();
    await client.close();
  });

  it('a cached record whose ETag is not a string is not sent as If-None-Match', async () => {
    const memory = createMemoryStorage();
    const seed = harness(() => jsonResponse(200, snapshotOf(2, { a: 'cached' }), { etag: '"snapshot-2"' }), { cache: memory });
    await seed.client.ready();
    await seed.client.close();
    const [key, raw] = [...memory.entries][0]!;
    const record = JSON.parse(raw!);
    record.etag = { not: 'a string' };
    memory.set(key!, JSON.stringify(record));
    const { client, requests } = harness(() => 'hang', { cache: memory });
    const header: unknown = requests[0]!.headers['if-none-match'];
    const served = client.get('a');
    await client.close();
    // Before the fix: the object itself goes out as the header value (tab sync checks this, the cache does not).
    expect(header).toBeUndefined();
    // The record's snapshot is still served: only its ETag is dropped.
    expect(served).toBe('cached');
  });
});
