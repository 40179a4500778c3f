// The per-key queue the storage adapters run their calls through (adapters/key-queue.ts).
import { describe, expect, it } from 'vitest';
import { createKeyQueue } from '../../adapters/key-queue';

describe('one rejected operation', () => {
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
