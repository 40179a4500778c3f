// Second adversarial pass over the storage adapters: the file adapter on real temporary
// directories, the per-key queue, the snapshot cache record, late storage answers and the
// default storage. Node environment.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileStorage, fileNameOf } from '../../adapters/file';
import { createKeyQueue } from '../../adapters/key-queue';
import { createLocalStorage } from '../../adapters/local-storage';
import { createClient } from '../../src/client';
import { StorageError } from '../../src/shared/errors';
import { fingerprint } from '../../src/shared/fingerprint';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import type { FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { BASE_URL, CLIENT_KEY, harness } from '../helpers/client-harness';
import { createFakeTransport, jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { overrideGlobal } from './global-override';

const roots: string[] = [];
async function tempDirectory(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'flagplane-adv2-'));
  roots.push(root);
  return join(root, 'flags');
}
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

const STORAGE_KEY = `flagplane:snapshot:${fingerprint(CLIENT_KEY)}`;

describe('file: what a crash or another actor leaves behind', () => {
  it('a temporary file left by a crash before the rename: the old value reads whole, and later writes and removes work around it', async () => {
    const directory = await tempDirectory();
    const adapter = createFileStorage({ directory });
    await adapter.set('flagplane:snapshot:ab12', '{"version":1}');
    // What a crash between the fsync and the rename leaves: a half-written `.<random>.tmp`.
    const stray = '.0123456789abcdef.tmp';
    await writeFile(join(directory, stray), '{"version":2, "fla');
    const reopened = createFileStorage({ directory });
    expect(await reopened.get('flagplane:snapshot:ab12')).toBe('{"version":1}');
    // A key whose name looks like the temporary file is its own file, not the stray one.
    expect(await reopened.get(stray)).toBeNull();
    await reopened.set('flagplane:snapshot:ab12', '{"version":3}');
    expect(await reopened.get('flagplane:snapshot:ab12')).toBe('{"version":3}');
    await reopened.remove('flagplane:snapshot:ab12');
    expect(await reopened.get('flagplane:snapshot:ab12')).toBeNull();
    // The stray file is left alone (nothing claims it), and it is the only file left.
    expect(await readdir(directory)).toEqual([stray]);
    expect(await readFile(join(directory, stray), 'utf8')).toBe('{"version":2, "fla');
  });

  it('the directory deleted while the adapter is in use: reads miss, removes succeed, the next write recreates it', async () => {
    const directory = await tempDirectory();
    const adapter = createFileStorage({ directory });
    await adapter.set('k', 'before');
    await rm(directory, { recursive: true, force: true });
    expect(await adapter.get('k')).toBeNull();
    await expect(adapter.remove('k')).resolves.toBeUndefined();
    await adapter.set('k', 'after');
    expect(await adapter.get('k')).toBe('after');
    expect(await readdir(directory)).toEqual([fileNameOf('k')]);
  });

  it('the 100-byte limit counts UTF-8 bytes, not characters; names stay short enough for the file system either side of it', async () => {
    const directory = await tempDirectory();
    const adapter = createFileStorage({ directory });
    const atLimit = 'é'.repeat(50); // 50 characters, 100 bytes: hex-named
    const overLimit = 'é'.repeat(51); // 51 characters, 102 bytes: hashed
    const huge = 'ключ'.repeat(128 * 1024); // 1 MB of UTF-8 as a key
    expect(fileNameOf(atLimit)).toBe(`k-${'c3a9'.repeat(50)}`);
    expect(fileNameOf(overLimit)).toMatch(/^h-[0-9a-f]{64}$/);
    expect(fileNameOf(huge)).toMatch(/^h-[0-9a-f]{64}$/);
    await adapter.set(atLimit, 'at');
    await adapter.set(overLimit, 'over');
    await adapter.set(huge, 'huge');
    expect([await adapter.get(atLimit), await adapter.get(overLimit), await adapter.get(huge)]).toEqual(['at', 'over', 'huge']);
    expect(await adapter.get(huge.slice(0, -1))).toBeNull();
    for (const name of await readdir(directory)) expect(name.length).toBeLessThanOrEqual(202);
  });

  it('a failed write does not hold up or undo the calls queued after it on the same key', async () => {
    const directory = await tempDirectory();
    const adapter = createFileStorage({ directory });
    await adapter.set('k', 'first');
    // The key's file turned into a non-empty directory: the rename of the next write fails.
    const path = join(directory, fileNameOf('k'));
    await rm(path);
    await mkdir(join(path, 'inside'), { recursive: true });
    const failing = adapter.set('k', 'second');
    const read = adapter.get('k');
    const failed = failing.then(
      () => 'resolved',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await expect(failed).resolves.toMatch(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/);
    await expect(read).rejects.toMatchObject({ code: 'EISDIR' });
    await rm(path, { recursive: true });
    await adapter.set('k', 'third');
    expect(await adapter.get('k')).toBe('third');
    expect(await readdir(directory)).toEqual([fileNameOf('k')]);
  });
});

describe('key queue: one rejected operation', () => {
  it('holds the next operation on its key until it has settled, then lets it run; other keys never wait', async () => {
    const queue = createKeyQueue();
    const log: string[] = [];
    let rejectSlow!: (error: Error) => void;
    const slow = queue('k', () => {
      log.push('start slow');
      return new Promise<never>((_, reject) => (rejectSlow = reject));
    });
    const throwing = queue('k', () => {
      log.push('start throwing');
      throw new Error('sync throw');
    });
    const after = queue('k', async () => {
      log.push('start after');
      return 'after';
    });
    const other = queue('other', async () => {
      log.push('start other');
      return 'other';
    });
    expect(await other).toBe('other');
    expect(log).toEqual(['start slow', 'start other']);
    rejectSlow(new Error('late rejection'));
    await expect(slow).rejects.toThrow('late rejection');
    await expect(throwing).rejects.toThrow('sync throw');
    await expect(after).resolves.toBe('after');
    expect(log).toEqual(['start slow', 'start other', 'start throwing', 'start after']);
  });
});

describe('the snapshot cache record', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a record of an older format (no `format`, or `format: 0`) is a silent miss, replaced by the next accepted snapshot', async () => {
    for (const format of [undefined, 0]) {
      const old = { format, key: fingerprint(CLIENT_KEY), etag: '"old"', snapshot: snapshotOf(9, { a: 'old format' }) };
      const cache = createMemoryStorage({ [STORAGE_KEY]: JSON.stringify(old) });
      const { client, errors, requests } = harness(snapshotServer(snapshotOf(2, { a: 'network' })).handler, { cache });
      expect(client.get('a', 'default')).toBe('default');
      expect(client.getStatus().status).toBe('initializing');
      await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
      expect(requests[0]!.headers['if-none-match']).toBeUndefined();
      expect(client.get('a')).toBe('network');
      expect(errors).toEqual([]);
      const written = JSON.parse(cache.get(STORAGE_KEY) as string);
      expect(written).toMatchObject({ format: 1, key: fingerprint(CLIENT_KEY), etag: '"snapshot-2"', snapshot: { version: 2 } });
      await client.close();
    }
  });

  it('a failing write is reported once per accepted snapshot: not again on 304s or on a 200 of the same version; memory keeps serving', async () => {
    const writes: string[] = [];
    const cache: StorageAdapter = {
      get: () => null,
      set: (_key, value) => {
        writes.push(value);
        return Promise.reject(new Error('disk full'));
      },
      remove: () => undefined,
    };
    let body = snapshotOf(1, { a: 'v1' });
    let withEtag = true;
    const server = (request: { headers: Record<string, string> }) => {
      const etag = `"snapshot-${body.version}"`;
      if (withEtag && request.headers['if-none-match'] === etag) return response(304, '', { etag });
      return jsonResponse(200, body, withEtag ? { etag } : {});
    };
    const { client, errors, requests } = harness(server, { cache, pollInterval: 1000 });
    await client.ready();
    await vi.advanceTimersByTimeAsync(0);
    expect(errors.map((error) => error.message)).toEqual([`writing "${STORAGE_KEY}" failed: disk full`]);
    await vi.advanceTimersByTimeAsync(1000); // 304
    withEtag = false;
    await vi.advanceTimersByTimeAsync(1000); // 200, same version, no ETag
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(writes).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(client.getStatus()).toMatchObject({ status: 'ready', source: 'network', version: 1, error: null });
    expect(client.get('a')).toBe('v1');

    body = snapshotOf(2, { a: 'v2' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.get('a')).toBe('v2');
    expect(writes.map((value) => JSON.parse(value).snapshot.version)).toEqual([1, 2]);
    expect(errors).toHaveLength(2);
    expect(errors.every((error) => error instanceof StorageError && (error.cause as Error).message === 'disk full')).toBe(true);
    await client.close();
  });

  it('a format-1 record for this key whose snapshot fails the envelope checks is reported, not dropped in silence', async () => {
    // Was a bug: src/storage/snapshot-cache.ts:41-42 — `checkSnapshot(record.snapshot, 'cache')` returns
    // `{ kind: 'invalid', error }` and the error is thrown away; only a record that is not
    // JSON is reported. client.md: "Read and write failures are reported as `StorageError`";
    // the common quality bar: "bad input gets a clear error via onError". A cache entry
    // corrupted into `"flags": null` is as broken as one that is not JSON, yet nobody hears.
    const broken = { format: 1, key: fingerprint(CLIENT_KEY), etag: '"e"', snapshot: { ...snapshotOf(3, {}), flags: null } };
    const cache = createMemoryStorage({ [STORAGE_KEY]: JSON.stringify(broken) });
    const { client, errors } = harness(() => 'hang', { cache });
    expect(client.getStatus().status).toBe('initializing');
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(new RegExp(`^reading "${STORAGE_KEY}" failed: .*flags`))]);
    await client.close();
  });
});

describe('storage answers that arrive after close()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const split: FlagSnapshot = {
    schemaVersion: 1,
    version: 1,
    environmentId: 'production',
    flags: {
      split: {
        on: true,
        variations: ['a', 'b'],
        offVariation: 0,
        rules: [],
        fallthrough: {
          rollout: [
            { variation: 0, weight: 50_000 },
            { variation: 1, weight: 50_000 },
          ],
        },
        salt: 'split-salt',
        clientSide: true,
      },
    },
  };
  const valueFor = (anonymousId: string) => {
    const probe = harness(() => 'hang', { bootstrap: split, anonymousId, persist: false });
    const value = probe.client.get('split');
    void probe.client.close();
    return value;
  };

  it('a stored anonymous id that arrives after close() does not change what reads answer', async () => {
    // Was a bug: src/events/anonymous-id.ts:33 calls `adopt` whenever the read answers, and src/client.ts:205-208
    // then sets `anonymousId` and re-evaluates, with no `closed()` check (setContext and
    // identify have one). client.md, close(): "Reads keep answering from the last snapshot. …
    // After it, `setContext`, `setOverrides` and `identify` change nothing, so every reader
    // keeps seeing the same values." A late AsyncStorage answer re-buckets a closed client.
    let answer!: (id: string) => void;
    const storage: StorageAdapter = {
      get: (key) => (key === 'svc:anonymousId' ? new Promise((resolve) => (answer = resolve)) : Promise.resolve(null)),
      set: async () => undefined,
      remove: async () => undefined,
    };
    const { client } = harness(() => 'hang', { cache: storage, anonymousId: undefined, bootstrap: split });
    const before = client.get('split');
    const all = client.getAll();
    await client.close();
    let stored = '';
    for (let index = 0; index < 64 && !stored; index++) if (valueFor(`stored-${index}`) !== before) stored = `stored-${index}`;
    expect(stored).not.toBe('');
    answer(stored);
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('split')).toBe(before);
    expect(client.getAll()).toBe(all);
  });
});

describe('the default storage where localStorage is a stub (Node 25 without --localstorage-file)', () => {
  // Node 25 defines `globalThis.localStorage` by default; without `--localstorage-file` it is
  // an empty object answering `undefined` for every property (nodejs/node#60303).
  const nodeStub = () => overrideGlobal('localStorage', { value: new Proxy({}, { get: () => undefined }), writable: true });
  let restore: (() => void) | undefined;
  afterEach(() => {
    restore?.();
    restore = undefined;
  });

  it('createClient with persist on (the default) and no cache uses no storage there: nothing is reported', async () => {
    // Was a bug: src/storage/default-storage.ts:10-16 takes any truthy `localStorage` as a Storage, so every
    // client on Node 25 (server rendering, CLIs) reports "reading … failed: storage.getItem is
    // not a function" for the snapshot and the anonymous id, and a write failure per snapshot.
    // client.md, `cache`: "`localStorage` in browsers while `persist` is on; none elsewhere".
    // default-storage.ts's own contract: "`undefined` outside browsers".
    restore = nodeStub();
    const fake = createFakeTransport(snapshotServer(snapshotOf(1, { a: 'network' })).handler);
    const errors: unknown[] = [];
    const client = createClient({
      sdkKey: CLIENT_KEY,
      baseUrl: BASE_URL,
      transport: fake.transport,
      events: false,
      syncTabs: false,
      onError: (error) => errors.push(error),
    });
    await client.ready();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(client.get('a')).toBe('network');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('createLocalStorage() there throws "localStorage is not available in this environment"', () => {
    // Was a bug: adapters/local-storage.ts:44 only rejects a falsy `localStorage`; the stub is kept
    // (line 45, so never looked up again) and every call throws a bare TypeError
    // ("resolve(...).getItem is not a function"). adapters.md, failure table: "no
    // `localStorage` at all (server rendering, Node, workers) | `Error('localStorage is not
    // available in this environment')`".
    restore = nodeStub();
    const adapter = createLocalStorage();
    expect(() => adapter.get('k')).toThrow('localStorage is not available in this environment');
  });
});
