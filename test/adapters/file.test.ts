import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFileStorage, fileNameOf } from '../../adapters/file';
import { StorageError } from '../../src/shared/errors';
import { harness } from '../helpers/client-harness';
import { snapshotServer } from '../helpers/fake-transport';
import { snapshotOf } from '../helpers/snapshots';
import { describeStorageAdapter, ODD_KEYS } from './adapter-contract';

const roots: string[] = [];
/** A fresh temporary root; the adapter's directory inside it does not exist yet. */
async function tempRoot(): Promise<{ root: string; directory: string }> {
  const root = await mkdtemp(join(tmpdir(), 'flagplane-file-'));
  roots.push(root);
  return { root, directory: join(root, 'nested', 'flags') };
}
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function tempDirectory(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'flagplane-adv2-'));
  roots.push(root);
  return join(root, 'flags');
}

describeStorageAdapter('file', async () => {
  const { root, directory } = await tempRoot();
  return {
    adapter: createFileStorage({ directory }),
    reopen: () => createFileStorage({ directory }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

const exists = (path: string) => stat(path).then(
  () => true,
  () => false,
);

describe('file: layout on disk', () => {
  it('creates the directory and its parents at the first write, not on reads or removes', async () => {
    const { directory } = await tempRoot();
    const adapter = createFileStorage({ directory });
    expect(await adapter.get('k')).toBeNull();
    await adapter.remove('k');
    expect(await exists(directory)).toBe(false);
    await adapter.set('k', 'v');
    expect(await exists(directory)).toBe(true);
  });

  it('names a file k-<hex of the UTF-8 key>, holding the value as UTF-8', async () => {
    const { directory } = await tempRoot();
    await createFileStorage({ directory }).set('flagplane:snapshot:ab12', '{"banner":"🚀"}');
    const name = `k-${Buffer.from('flagplane:snapshot:ab12').toString('hex')}`;
    expect(fileNameOf('flagplane:snapshot:ab12')).toBe(name);
    expect(await readdir(directory)).toEqual([name]);
    expect(await readFile(join(directory, name), 'utf8')).toBe('{"banner":"🚀"}');
  });

  it('hashes keys over 100 bytes and keys with lone surrogates; names differ by more than case', () => {
    expect(fileNameOf('x'.repeat(100))).toMatch(/^k-(78){100}$/);
    expect(fileNameOf('x'.repeat(101))).toMatch(/^h-[0-9a-f]{64}$/);
    expect(fileNameOf('\uD800')).toMatch(/^h-[0-9a-f]{64}$/);
    expect(fileNameOf('\uD800')).not.toBe(fileNameOf('\uDC00'));
    expect(fileNameOf('A').toLowerCase()).not.toBe(fileNameOf('a').toLowerCase());
    expect(fileNameOf('')).toBe('k-');
  });

  it('keys that look like paths never leave the directory: one safe name per key, nothing else', async () => {
    const { root, directory } = await tempRoot();
    const adapter = createFileStorage({ directory });
    const hostile = [...ODD_KEYS, '../../escaped', '/etc/passwd', '..\\..\\escaped', 'nested/../../../x'];
    for (const key of hostile) await adapter.set(key, key);
    expect(await readdir(root)).toEqual(['nested']);
    expect(await readdir(join(root, 'nested'))).toEqual(['flags']);
    const names = await readdir(directory);
    expect(names).toHaveLength(new Set(hostile).size);
    for (const name of names) expect(name).toMatch(/^[kh]-[0-9a-f]*$/);
    for (const key of hostile) expect(await adapter.get(key)).toBe(key);
  });

  it('writes a value UTF-8 cannot hold (a lone surrogate) as UTF-16LE after a BOM', async () => {
    const { directory } = await tempRoot();
    await createFileStorage({ directory }).set('k', 'a\uD800');
    const bytes = await readFile(join(directory, fileNameOf('k')));
    expect([...bytes]).toEqual([0xff, 0xfe, 0x61, 0x00, 0x00, 0xd8]);
  });

  it.skipIf(process.platform === 'win32')('files are readable by their owner only', async () => {
    const { directory } = await tempRoot();
    await createFileStorage({ directory }).set('k', 'v');
    expect((await stat(join(directory, fileNameOf('k')))).mode & 0o777).toBe(0o600);
  });
});

describe('file: atomic writes', () => {
  it('a reader never sees a half-written value', async () => {
    const { directory } = await tempRoot();
    const adapter = createFileStorage({ directory });
    const old = 'o'.repeat(1000);
    await adapter.set('k', old);
    const path = join(directory, fileNameOf('k'));
    const big = 'n'.repeat(16 * 1024 * 1024);
    const seen = new Set<number>();
    let done = false;
    const writing = adapter.set('k', big).finally(() => (done = true));
    while (!done) seen.add((await readFile(path, 'utf8')).length);
    await writing;
    seen.add((await readFile(path, 'utf8')).length);
    expect([...seen].filter((length) => length !== old.length && length !== big.length)).toEqual([]);
    expect(seen.has(big.length)).toBe(true);
  });

  it('leaves no temporary file behind, after success or failure', async () => {
    const { directory } = await tempRoot();
    const adapter = createFileStorage({ directory });
    await adapter.set('ok', 'v');
    // The key's file name taken by a non-empty directory: the final rename fails.
    await mkdir(join(directory, fileNameOf('blocked'), 'inside'), { recursive: true });
    await expect(adapter.set('blocked', 'v')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/) });
    expect((await readdir(directory)).sort()).toEqual([fileNameOf('blocked'), fileNameOf('ok')].sort());
  });
});

describe('file: failures', () => {
  it('a directory that cannot be created (a file is in the way) rejects with the fs error', async () => {
    const { root } = await tempRoot();
    await writeFile(join(root, 'a-file'), 'x');
    const adapter = createFileStorage({ directory: join(root, 'a-file', 'flags') });
    await expect(adapter.set('k', 'v')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) });
    // A read there is a failure too, not a miss: only a missing file reads as null.
    await expect(adapter.get('k')).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('a read-only directory rejects with EACCES', async () => {
    const { directory } = await tempRoot();
    await mkdir(directory, { recursive: true });
    await chmod(directory, 0o500);
    try {
      await expect(createFileStorage({ directory }).set('k', 'v')).rejects.toMatchObject({ code: 'EACCES' });
    } finally {
      await chmod(directory, 0o700);
    }
  });

  it('an unreadable entry (a directory where the file should be) rejects on get', async () => {
    const { directory } = await tempRoot();
    await mkdir(join(directory, fileNameOf('k')), { recursive: true });
    await expect(createFileStorage({ directory }).get('k')).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('a client whose writes fail reports a StorageError with the fs error as cause', async () => {
    const { root } = await tempRoot();
    await writeFile(join(root, 'a-file'), 'x');
    const { client, errors } = harness(snapshotServer(snapshotOf(1, { a: 1 })).handler, {
      cache: createFileStorage({ directory: join(root, 'a-file', 'flags') }),
    });
    await client.ready();
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(errors.every((error) => error instanceof StorageError)).toBe(true);
    expect(errors.map((error) => (error.cause as NodeJS.ErrnoException).code)).toEqual(['ENOTDIR', expect.stringMatching(/^(ENOTDIR|EEXIST)$/)]);
    expect(client.get('a')).toBe(1);
    await client.close();
  });
});

describe('file: with the client', () => {
  it('a client created after a restart is ready from the cached snapshot', async () => {
    const { directory } = await tempRoot();
    const first = harness(snapshotServer(snapshotOf(7, { banner: 'cached' })).handler, { cache: createFileStorage({ directory }) });
    await first.client.ready();
    await first.client.close();
    await vi.waitFor(async () => expect((await readdir(directory).catch(() => [])).filter((name) => name.startsWith('k-'))).toHaveLength(1));

    const second = harness(() => 'hang', { cache: createFileStorage({ directory }) });
    await expect(second.client.ready()).resolves.toEqual({ status: 'ready', source: 'cache' });
    expect(second.client.get('banner')).toBe('cached');
    expect(second.errors).toEqual([]);
    await second.client.close();
  });
});

describe('two instances on one directory', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  it('concurrent writes of one key from two instances leave one whole value and no temporary file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'flagplane-adv-'));
    roots.push(root);
    const [one, two] = [createFileStorage({ directory: root }), createFileStorage({ directory: root })];
    const values = Array.from({ length: 8 }, (_, index) => String(index).repeat(200_000 + index));
    await Promise.all(values.map((value, index) => (index % 2 ? one : two).set('k', value)));
    const final = await one.get('k');
    expect(values).toContain(final);
    expect(await readdir(root)).toEqual([fileNameOf('k')]);
  });
});

describe('what a crash or another actor leaves behind', () => {
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
