import { createKeyQueue } from './key-queue';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageAdapter } from '../src/storage/storage-types';

/** Options of {@link createFileStorage}. */
export interface FileStorageOptions {
  /** Directory holding one file per key; created (with its parents) at the first write. */
  directory: string;
}

/** An asynchronous {@link StorageAdapter} on the file system. */
export interface FileStorageAdapter extends StorageAdapter {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
}

// With the `u` flag, a surrogate pair is one code point: this matches lone surrogates only.
const LONE_SURROGATE = /\p{Cs}/u;
const UTF16_BOM = Buffer.from([0xff, 0xfe]);

/**
 * The file name of a key: `k-` and the hex of its UTF-8 bytes, or, for a key longer than
 * 100 bytes or holding a lone surrogate, `h-` and the SHA-256 of its UTF-16 code units.
 * Only `[a-z0-9-]`: no separators, no `..`, no case collisions, no Windows device names.
 */
export function fileNameOf(key: string): string {
  const utf8 = Buffer.from(key, 'utf8');
  if (utf8.length <= 100 && !LONE_SURROGATE.test(key)) return `k-${utf8.toString('hex')}`;
  return `h-${createHash('sha256').update(Buffer.from(key, 'utf16le')).digest('hex')}`;
}

// UTF-8, readable with any tool; a string UTF-8 cannot hold (a lone surrogate) is written
// as UTF-16LE after a BOM, bytes no UTF-8 file starts with.
const encode = (value: string) =>
  LONE_SURROGATE.test(value) ? Buffer.concat([UTF16_BOM, Buffer.from(value, 'utf16le')]) : Buffer.from(value, 'utf8');
const decode = (bytes: Buffer) =>
  bytes[0] === 0xff && bytes[1] === 0xfe ? bytes.subarray(2).toString('utf16le') : bytes.toString('utf8');

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/**
 * A {@link StorageAdapter} for Node (Electron's main process, CLIs): one file per key
 * under `directory`, named by {@link fileNameOf}. A write goes to a temporary file in the
 * same directory, is flushed to disk, then renamed over the key's file, so a crash never
 * leaves a half-written value. Calls on one key run in call order. A missing file reads
 * as `null`; every other failure rejects with the `fs` error (`code`, `path`).
 */
export function createFileStorage(options: FileStorageOptions): FileStorageAdapter {
  const { directory } = options;
  const inOrder = createKeyQueue();
  const queue = <T>(key: string, operation: (path: string) => Promise<T>): Promise<T> =>
    inOrder(key, () => operation(join(directory, fileNameOf(key))));

  const write = async (path: string, value: string) => {
    await mkdir(directory, { recursive: true });
    // Starts with a dot and ends in .tmp: never the name of a key's file.
    const temporary = join(directory, `.${randomBytes(8).toString('hex')}.tmp`);
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(encode(value));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  };

  return {
    get: (key) =>
      queue(key, (path) =>
        readFile(path).then(decode, (error) => {
          if (isMissing(error)) return null;
          throw error;
        }),
      ),
    set: (key, value) => queue(key, (path) => write(path, value)),
    remove: (key) =>
      queue(key, (path) =>
        unlink(path).catch((error) => {
          if (!isMissing(error)) throw error;
        }),
      ),
  };
}
