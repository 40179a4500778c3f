import { describe, expect, it, vi } from 'vitest';
import type { ChangeEvent, FlagplaneError, JsonValue } from '../../src/index';
import { SchemaError } from '../../src/shared/errors';
import { evaluateFlag } from '../../src/evaluation/index';
import { createTestClient } from '../../testing/index';
import { bannerFlag, targetedSnapshot } from './fixtures';

/** A test client with a listener that records the change sets it hears. */
function listened(flags: Record<string, JsonValue>, context?: { userId?: string; attributes?: Record<string, JsonValue> }) {
  const client = createTestClient({ flags, context });
  const events: ChangeEvent[] = [];
  client.subscribe((event) => events.push(event));
  return { client, events, heard: () => events.map(({ changed }) => [...changed]) };
}

describe('set(key, value)', () => {
  it('notifies exactly the key it changed, with the status, even a key never read', () => {
    const { client, events, heard } = listened({ a: 1, b: 2 });
    client.set('a', 10);
    expect(heard()).toEqual([['a']]);
    expect(events[0]!.status).toBe(client.getStatus());
    expect(client.get('a')).toBe(10);
    expect(client.getDetails('a')).toEqual({ key: 'a', value: 10, reason: 'DEFAULT', variation: 0, version: 1 });
  });

  it('with a value equal to the one served notifies no one, and keeps every object', () => {
    const { client, heard } = listened({ a: { seats: 3 }, b: 2 });
    const [all, a, value] = [client.getAll(), client.getDetails('a'), client.get('a')];
    client.set('a', { seats: 3 });
    expect(heard()).toEqual([]);
    expect(client.getAll()).toBe(all);
    expect(client.getDetails('a')).toBe(a);
    expect(client.get('a')).toBe(value);
  });

  it('keeps getAll() and the details of every other flag identical; getAll() is a new object once', () => {
    const { client } = listened({ a: 1, b: { seats: 3 } });
    const [all, b] = [client.getAll(), client.getDetails('b')];
    expect(client.getAll()).toBe(all);
    client.set('a', 10);
    const next = client.getAll();
    expect(next).not.toBe(all);
    expect(next).toEqual({ a: 10, b: { seats: 3 } });
    expect(client.getAll()).toBe(next);
    expect(client.getDetails('b')).toBe(b);
    expect(client.getStatus().version).toBe(1);
  });

  it('adds a key the client did not have, and notifies it', () => {
    const { client, heard } = listened({ a: 1 });
    expect(client.get('later', 'fallback')).toBe('fallback');
    client.set('later', 'now');
    expect(heard()).toEqual([['later']]);
    expect(client.get('later', 'fallback')).toBe('now');
    expect(client.getAll()).toEqual({ a: 1, later: 'now' });
  });
});

describe('setSnapshot(snapshot) and the context', () => {
  it('evaluates the rules under the context; setContext notifies the flags whose value changed', () => {
    const { client, events, heard } = listened({ a: 1 }, { attributes: { plan: 'pro' } });
    client.setSnapshot(targetedSnapshot(7));
    expect(heard()).toEqual([['a', 'banner', 'theme']]);
    expect(events[0]!.status).toMatchObject({ version: 7 });
    expect(client.getDetails('banner')).toEqual({ key: 'banner', value: 'pro', reason: 'TARGETING_MATCH', variation: 1, ruleId: 'plan-pro', version: 7 });
    expect(client.get('a')).toBeUndefined();
    client.setContext({ attributes: { plan: 'free' } });
    expect(heard()[1]).toEqual(['banner']);
    expect(client.getDetails('banner')).toMatchObject({ value: 'everyone', reason: 'DEFAULT' });
    client.setContext({ attributes: { plan: 'team' } });
    expect(heard()).toHaveLength(2);
  });

  it('a snapshot of the same version and outcomes notifies no one; another version changes only the status', () => {
    const { client, events } = listened({});
    client.setSnapshot(targetedSnapshot(7));
    const status = client.getStatus();
    client.setSnapshot(targetedSnapshot(7));
    expect(events).toHaveLength(1);
    client.setSnapshot(targetedSnapshot(3));
    expect(events).toHaveLength(2);
    expect([...events[1]!.changed]).toEqual([]);
    expect(events[1]!.status).not.toBe(status);
    expect(client.getStatus()).toEqual({ ...status, version: 3 });
  });

  it('buckets rollouts by the userId, as the real evaluator does', () => {
    const rollout = { ...bannerFlag, rules: [], fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] } };
    const client = createTestClient({ flags: {} });
    client.setSnapshot({ ...targetedSnapshot(1), flags: { rollout } });
    const served = new Set<JsonValue>();
    for (const userId of ['ana', 'bo', 'cy', 'di', 'ed', 'flo']) {
      client.setContext({ userId });
      const { kind, ...expected } = evaluateFlag(rollout, { userId }, userId);
      expect(client.getDetails('rollout')).toEqual({ key: 'rollout', ...expected, version: 1 });
      served.add(client.get('rollout')!);
    }
    // Both halves of the rollout are served to someone: the userId is what buckets.
    expect(served).toEqual(new Set(['everyone', 'pro']));
  });

  it('set() after setSnapshot replaces that one flag, rules and all, in the same version', () => {
    const { client, heard } = listened({}, { attributes: { plan: 'pro' } });
    client.setSnapshot(targetedSnapshot(7));
    client.set('banner', 'forced');
    expect(heard()[1]).toEqual(['banner']);
    expect(client.getDetails('banner')).toEqual({ key: 'banner', value: 'forced', reason: 'DEFAULT', variation: 0, version: 7 });
    expect(client.get('theme')).toBe('dark');
  });

  it('throws a SchemaError for a value that is not a schema-1 snapshot, and keeps serving', () => {
    const { client, events } = listened({ a: 1 });
    expect(() => client.setSnapshot({ ...targetedSnapshot(1), schemaVersion: 2 })).toThrow(SchemaError);
    expect(() => client.setSnapshot(null as never)).toThrow(/setSnapshot: the snapshot is not a JSON object/);
    expect(client.get('a')).toBe(1);
    expect(events).toEqual([]);
  });

  it('serves a malformed flag as the real client does: the fallback with PARSE_ERROR', () => {
    const client = createTestClient({ flags: {} });
    client.setSnapshot({ ...targetedSnapshot(1), flags: { broken: { ...bannerFlag, offVariation: 9, on: false } } });
    expect(client.getDetails('broken', 'fallback')).toMatchObject({ value: 'fallback', reason: 'ERROR', errorCode: 'PARSE_ERROR' });
  });

  it('identify() sets the userId and, when given, the traits as attributes; without traits they stay', async () => {
    const { client, heard } = listened({});
    client.setSnapshot(targetedSnapshot(1));
    await client.identify('ana', { plan: 'pro' });
    expect(client.getContext()).toEqual({ userId: 'ana', attributes: { plan: 'pro' }, segmentIds: [] });
    expect(client.get('banner')).toBe('pro');
    expect(heard()[1]).toEqual(['banner']);
    await client.identify('bo');
    expect(client.getContext()).toEqual({ userId: 'bo', attributes: { plan: 'pro' }, segmentIds: [] });
    expect(heard()).toHaveLength(2);
  });
});

describe('setOverrides(values)', () => {
  it('serves overrides with reason OVERRIDE and notifies their keys; {} clears them', () => {
    const { client, heard } = listened({ a: 1, b: 2 });
    const all = client.getAll();
    client.setOverrides({ a: 100, c: 'only here' });
    expect(heard()).toEqual([['a', 'c']]);
    expect(client.getDetails('a')).toEqual({ key: 'a', value: 100, reason: 'OVERRIDE', variation: null, version: null });
    expect(client.getAll()).toEqual({ a: 100, b: 2, c: 'only here' });
    client.setOverrides({});
    expect(heard()[1]).toEqual(['a', 'c']);
    expect(client.get('a')).toBe(1);
    expect(client.getAll()).toEqual(all);
  });

  it('reports anything but an object to onError as a ConfigError and keeps the overrides', () => {
    const onError = vi.fn<(error: FlagplaneError) => void>();
    const client = createTestClient({ flags: { a: 1 }, onError });
    client.setOverrides({ a: 2 });
    expect(() => client.setOverrides('a' as never)).not.toThrow();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ name: 'ConfigError', code: 'config' }));
    expect(client.get('a')).toBe(2);
    client.setOverrides(null as never);
    expect(client.get('a')).toBe(1);
  });
});

describe('subscribe(listener)', () => {
  it('a throwing listener never stops the others; onError hears it (code listener)', () => {
    const onError = vi.fn<(error: FlagplaneError) => void>();
    const client = createTestClient({ flags: { a: 1 }, onError });
    const after = vi.fn();
    client.subscribe(() => {
      throw new Error('boom');
    });
    client.subscribe(after);
    expect(() => client.set('a', 2)).not.toThrow();
    expect(after).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'listener', message: 'a subscribe listener threw: boom' }));
  });

  it('returns the function that unsubscribes', () => {
    const client = createTestClient({ flags: { a: 1 } });
    const listener = vi.fn();
    const unsubscribe = client.subscribe(listener);
    unsubscribe();
    client.set('a', 2);
    expect(listener).not.toHaveBeenCalled();
  });
});
