import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../../adapters/memory';
import { createMemoryStorage as coreCreateMemoryStorage } from '../../src/index';
import { describeStorageAdapter } from './adapter-contract';

// Not durable: no `reopen`, so the durability case shows as skipped.
describeStorageAdapter('memory', async () => ({ adapter: createMemoryStorage() }));

describe('memory: the subpath', () => {
  it('is the very function the core exports', () => {
    expect(createMemoryStorage).toBe(coreCreateMemoryStorage);
  });

  it('is synchronous and starts from the initial entries', () => {
    const adapter = createMemoryStorage({ k: 'v' });
    expect(adapter.get('k')).toBe('v');
    expect(adapter.set('k', 'w')).toBeUndefined();
    expect(adapter.entries.get('k')).toBe('w');
  });
});
