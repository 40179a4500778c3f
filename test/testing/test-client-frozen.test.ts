import { describe, expect, it } from 'vitest';
import { forContext } from '../../src/index';
import type { FlagsClient } from '../../src/index';
import { createTestClient } from '../../testing/index';
import { banner, expectUnchangeable } from '../helpers/frozen';
import { snapshotOf } from '../helpers/snapshots';

/** What the client serves for its own context and another, and a view for a third. */
function expectServedEverywhere(client: FlagsClient, expected: unknown) {
  expect(client.get('banner')).toEqual(expected);
  expect(client.getAll().banner).toEqual(expected);
  expect(forContext(client, { userId: 'another' }).get('banner')).toEqual(expected);
  client.setContext({ userId: 'second' });
  expect(client.getDetails('banner').value).toEqual(expected);
}

describe('createTestClient: values are immutable', () => {
  it('serves the flags it was given frozen, the test’s objects in place', () => {
    const flags = { banner: banner() };
    const client = createTestClient({ flags, context: { userId: 'first' } });
    expect(Object.isFrozen(flags.banner.layout)).toBe(true);
    expectUnchangeable(client.get('banner'));
    expectUnchangeable(client.getDetails('banner').value);
    expect(() => Object.assign(client.getDetails('banner'), { reason: 'OVERRIDE' })).toThrow(TypeError);
    expect(() => Object.assign(client.getAll(), { banner: 'MUTATED' })).toThrow(TypeError);
    expectUnchangeable(forContext(client, { userId: 'viewer' }).get('banner'));
    expectServedEverywhere(client, banner());
  });

  it('serves what set, setSnapshot and setOverrides take frozen', () => {
    const client = createTestClient({ flags: { banner: banner('given') } });
    client.set('banner', banner('set'));
    expectUnchangeable(client.get('banner'));
    expectServedEverywhere(client, banner('set'));

    client.setSnapshot(snapshotOf(2, { banner: banner('snapshot') }));
    expectUnchangeable(client.get('banner'));
    expectServedEverywhere(client, banner('snapshot'));

    client.setOverrides({ banner: banner('override') });
    expectUnchangeable(client.get('banner'));
    expectServedEverywhere(client, banner('override'));
  });
});
