import { describe, expect, expectTypeOf, it } from 'vitest';
import type { EvaluationDetails, FlagsClient, JsonValue } from '../../src/index';
import { createTestClient, type TestClient } from '../../testing/index';

const flags = { 'new-checkout': true, theme: 'dark', seats: 3, limits: { seats: 3 }, regions: ['eu'] };

describe('createTestClient: typed reads', () => {
  it('types the client from the flags, each value widened', () => {
    const client = createTestClient({ flags });
    type Expected = { 'new-checkout': boolean; theme: string; seats: number; limits: { seats: number }; regions: string[] };
    expectTypeOf(client).toEqualTypeOf<TestClient<Expected>>();
    expectTypeOf(client).toExtend<FlagsClient<Expected>>();
    expectTypeOf(client.get('theme')).toEqualTypeOf<string>();
    expectTypeOf(client.get('new-checkout')).toEqualTypeOf<boolean>();
    expectTypeOf(client.getDetails('seats')).toEqualTypeOf<EvaluationDetails<number>>();
    expectTypeOf(client.get('unknown')).toEqualTypeOf<JsonValue | undefined>();
    expectTypeOf(client.set).toBeCallableWith('theme', 'light');
    expectTypeOf(client.set).toBeCallableWith('added-later', { any: 'json' });
    // @ts-expect-error a known flag takes a value of its own type
    client.set('theme', 42);
  });

  it('types a flag given as a literal `true` as boolean', () => {
    const client = createTestClient({ flags: { 'new-checkout': true } });
    expectTypeOf(client.get('new-checkout')).toEqualTypeOf<boolean>();
    client.set('new-checkout', false);
    expect(client.get('new-checkout')).toBe(false);
  });
});

describe('createTestClient: what reads serve', () => {
  it('serves each flag with reason DEFAULT, variation 0 and version 1', () => {
    const client = createTestClient({ flags });
    expect(client.get('theme')).toBe('dark');
    expect(client.get('limits')).toEqual({ seats: 3 });
    expect(client.getDetails('new-checkout')).toEqual({ key: 'new-checkout', value: true, reason: 'DEFAULT', variation: 0, version: 1 });
    expect(client.getAll()).toEqual(flags);
  });

  it('ready() resolves at once with source bootstrap, and the status says ready', async () => {
    const client = createTestClient({ flags });
    let result: unknown;
    void client.ready().then((value) => (result = value));
    await Promise.resolve();
    expect(result).toEqual({ status: 'ready', source: 'bootstrap' });
    expect(client.ready()).toBe(client.ready());
    expect(client.getStatus()).toEqual({ status: 'ready', connection: 'polling', source: 'bootstrap', version: 1, error: null });
  });

  it('serves an unknown key as the real client does: the fallback, FLAG_NOT_FOUND', () => {
    const client = createTestClient({ flags });
    expect(client.get('unknown')).toBeUndefined();
    expect(client.get('unknown', 'fallback')).toBe('fallback');
    expect(client.getDetails('unknown', 1)).toEqual({ key: 'unknown', value: 1, reason: 'ERROR', variation: null, version: 1, errorCode: 'FLAG_NOT_FOUND' });
  });

  it('serves the fallback for a value of another JSON type (TYPE_MISMATCH)', () => {
    const client = createTestClient({ flags });
    expect(client.get('theme', false)).toBe(false);
    expect(client.getDetails('theme', false)).toMatchObject({ reason: 'ERROR', errorCode: 'TYPE_MISMATCH' });
  });

  it('has the context it was given, else the empty one createClient has', () => {
    const context = { userId: 'ana', attributes: { plan: 'pro' } };
    expect(createTestClient({ flags, context }).getContext()).toBe(context);
    expect(createTestClient({ flags }).getContext()).toEqual({ userId: undefined, attributes: {}, segmentIds: [] });
  });

  it('keeps keys such as __proto__ and constructor as flags, and never throws on odd keys', () => {
    const client = createTestClient({ flags: JSON.parse('{"__proto__": 1, "constructor": 2}') as Record<string, JsonValue> });
    expect(client.get('__proto__')).toBe(1);
    expect(client.get('constructor')).toBe(2);
    expect(Object.keys(client.getAll())).toEqual(['__proto__', 'constructor']);
    expect(client.get('toString')).toBeUndefined();
    for (const key of [undefined, null, 42, {}, Symbol('key')]) {
      expect(client.get(key as never)).toBeUndefined();
      expect(client.getDetails(key as never, 'fallback')).toMatchObject({ value: 'fallback', reason: 'ERROR', errorCode: 'FLAG_NOT_FOUND' });
    }
  });
});
