import { describe, expect, it } from 'vitest';
import { checkSnapshot } from '../../src/snapshot/snapshot-parse';

describe('checkSnapshot (snapshot-parse.ts): the envelope', () => {
  const good = { schemaVersion: 1, version: 3, environmentId: 'e', flags: {} };

  it('accepts a minimal schema-1 snapshot and returns it as is', () => {
    expect(checkSnapshot(good, 'test')).toEqual({ kind: 'ok', snapshot: good });
  });

  it.each([
    ['schemaVersion 2 (newer)', { ...good, schemaVersion: 2 }],
    ['schemaVersion "1"', { ...good, schemaVersion: '1' }],
    ['version missing', { ...good, version: undefined }],
    ['version negative', { ...good, version: -1 }],
    ['version fractional', { ...good, version: 1.5 }],
    ['version a string', { ...good, version: '3' }],
    ['environmentId missing', { ...good, environmentId: undefined }],
    ['flags an array', { ...good, flags: [] }],
    ['flags null', { ...good, flags: null }],
    ['an array', [good]],
    ['null', null],
  ])('rejects %s with a SchemaError naming the origin', (_name, value) => {
    const result = checkSnapshot(value, 'origin-x');
    expect(result.kind).toBe('invalid');
    if (result.kind === 'invalid') {
      expect(result.error.name).toBe('SchemaError');
      expect(result.error.message).toContain('origin-x');
    }
  });
});
