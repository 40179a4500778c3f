import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FlagsClient } from '../../src/client-types';
import { evaluateFlag } from '../../src/evaluation/index';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { mulberry32 } from '../helpers/prng';
import { forContext } from '../../src/index';

const clients: FlagsClient[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** 'pro' to users whose `plan` is pro, a 50/50 rollout between 'a' and 'b' for everyone else. */
const checkout: Flag = {
  on: true,
  variations: ['a', 'b', 'pro'],
  offVariation: 0,
  rules: [{ id: 'pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 2 } }],
  fallthrough: { rollout: [{ variation: 0, weight: 50_000 }, { variation: 1, weight: 50_000 }] },
  salt: 'checkout',
  clientSide: true,
};
const banner = (text: string): Flag => ({ ...checkout, variations: [text], rules: [], fallthrough: { variation: 0 }, salt: 'banner' });
const snapshotOf = (version: number, text = 'hello'): FlagSnapshot => ({
  schemaVersion: 1,
  version,
  environmentId: 'production',
  flags: { checkout, banner: banner(text) },
});

async function serverClient(options: Record<string, unknown> = {}) {
  const plane = fakeDataPlane(snapshotOf(1));
  const h = harness(plane.handler, { pollInterval: 0, context: { userId: 'owner', attributes: { plan: 'pro' } }, ...options });
  clients.push(h.client);
  await h.client.ready();
  return { ...h, plane };
}

const expected = (context: EvaluationContext) => evaluateFlag(checkout, context, context.userId!);

describe('forContext: reads for one request, the client untouched', () => {
  it('evaluates for the given context and leaves the client’s own context, values and listeners alone', async () => {
    const { client } = await serverClient();
    const heard = vi.fn();
    client.subscribe(heard);
    const own = client.getContext();
    expect(client.get('checkout')).toBe('pro');

    const visitor = { userId: 'visitor-7', attributes: { plan: 'free' } };
    const view = forContext(client, visitor);
    const details = view.getDetails('checkout', 'a');
    const outcome = expected(visitor);
    expect(outcome.kind).toBe('served');
    expect(details).toMatchObject({ key: 'checkout', value: outcome.kind === 'served' && outcome.value, reason: 'SPLIT', version: 1 });
    expect(view.get('checkout', 'a')).toBe(details.value);
    expect(view.getContext()).toBe(visitor);

    expect(client.getContext()).toBe(own);
    expect(client.get('checkout')).toBe('pro');
    expect(heard).not.toHaveBeenCalled();
  });

  it('keeps requests apart: many views read in an interleaved order each get their own user’s values', async () => {
    const { client } = await serverClient();
    const random = mulberry32(15);
    const contexts = Array.from({ length: 200 }, (_, i) => ({ userId: `user-${i}`, attributes: { plan: i % 7 ? 'free' : 'pro' } }));
    const views = contexts.map((context) => forContext(client, context));
    for (let n = 0; n < 2_000; n++) {
      const i = Math.floor(random() * views.length);
      const outcome = expected(contexts[i]!);
      expect(views[i]!.get('checkout', 'a')).toBe(outcome.kind === 'served' ? outcome.value : 'a');
    }
    // The rollout really splits these users: a leak between views could not hide behind one answer.
    expect(new Set(views.map((view) => view.get('checkout', 'a')))).toEqual(new Set(['a', 'b', 'pro']));
  });

  it('buckets each view by its own userId, else the anonymous id, never by the client’s user', async () => {
    // A three-way rollout; by the hash, user-0 is red, user-1 blue and user-8 green.
    const colour: Flag = {
      on: true,
      variations: ['red', 'green', 'blue'],
      offVariation: 0,
      rules: [],
      fallthrough: { rollout: [{ variation: 0, weight: 33_334 }, { variation: 1, weight: 33_333 }, { variation: 2, weight: 33_333 }] },
      salt: 'colour',
      clientSide: true,
    };
    const plane = fakeDataPlane({ schemaVersion: 1, version: 1, environmentId: 'production', flags: { colour } });
    const { client } = harness(plane.handler, { pollInterval: 0, context: { userId: 'user-0' } });
    clients.push(client);
    await client.ready();
    const served = (key: string) => evaluateFlag(colour, {}, key);
    expect(['user-0', 'user-1', 'user-8'].map((key) => served(key))).toMatchObject([{ value: 'red' }, { value: 'blue' }, { value: 'green' }]);
    expect(client.getDetails('colour', 'none')).toMatchObject({ value: 'red', variation: 0, reason: 'SPLIT' });
    for (const userId of ['user-1', 'user-8']) {
      const outcome = served(userId);
      expect(outcome.kind).toBe('served');
      if (outcome.kind !== 'served') continue;
      expect(forContext(client, { userId }).getDetails('colour', 'none')).toMatchObject({ value: outcome.value, variation: outcome.variation, reason: 'SPLIT' });
    }
    // No userId in the view: the anonymous id (the harness's) is the key, as for the client itself.
    const anonymous = served('anonymous-test-id');
    expect(forContext(client, {}).getDetails('colour', 'none')).toMatchObject({ value: anonymous.kind === 'served' && anonymous.value, reason: 'SPLIT' });
  });

  it('reads the snapshot the client held when the view was made; a later view reads the newer one', async () => {
    const { client, plane } = await serverClient();
    const before = forContext(client, { userId: 'u1' });
    plane.publish(snapshotOf(2, 'bonjour'));
    await client.refresh();
    expect(client.get('banner')).toBe('bonjour');
    expect(before.getDetails('banner')).toMatchObject({ value: 'hello', version: 1 });
    expect(forContext(client, { userId: 'u1' }).getDetails('banner')).toMatchObject({ value: 'bonjour', version: 2 });
  });

  it('getAll: every flag over the defaults, a stable object, and the overrides the client holds', async () => {
    const { client } = await serverClient({ defaults: { missing: 'default' } });
    client.setOverrides({ banner: 'override' });
    const view = forContext(client, { userId: 'visitor', attributes: { plan: 'pro' } });
    expect(view.getAll()).toEqual({ missing: 'default', checkout: 'pro', banner: 'override' });
    expect(view.getAll()).toBe(view.getAll());
    expect(view.getDetails('banner')).toMatchObject({ reason: 'OVERRIDE' });
  });

  it('before any snapshot, a view answers the fallback with PROVIDER_NOT_READY, and never throws', () => {
    const { client } = harness(() => 'hang', {});
    clients.push(client);
    const view = forContext(client, { userId: 'early' });
    expect(view.getDetails('checkout', 'a')).toMatchObject({ value: 'a', reason: 'ERROR', errorCode: 'PROVIDER_NOT_READY' });
    expect(() => forContext(client, undefined as never).get(42 as never)).not.toThrow();
    expect(forContext(client, undefined as never).getContext()).toEqual({ userId: undefined, attributes: {}, segmentIds: [] });
  });

  it('reports each view’s reads for that view’s user, once per flush window', async () => {
    const { client, plane } = await serverClient({ events: true, flushInterval: 0 });
    const alice = forContext(client, { userId: 'alice', attributes: { plan: 'pro' } });
    const bob = forContext(client, { userId: 'bob', attributes: { plan: 'pro' } });
    alice.get('checkout');
    alice.get('checkout');
    bob.get('checkout');
    forContext(client, { userId: 'alice', attributes: { plan: 'pro' } }).get('checkout');
    await client.flush();
    expect(plane.events.filter((event) => event.type === 'evaluation')).toEqual([
      { type: 'evaluation', key: 'checkout', reason: 'TARGETING_MATCH', value: 'pro', userId: 'alice' },
      { type: 'evaluation', key: 'checkout', reason: 'TARGETING_MATCH', value: 'pro', userId: 'bob' },
    ]);
  });

  it('evaluates lazily: a view reads no flag it is not asked for', async () => {
    const { client } = await serverClient();
    let reads = 0;
    const counted = { ...banner('lazy') };
    Object.defineProperty(counted, 'on', { enumerable: true, get: () => (reads++, true) });
    const bootstrap = { ...snapshotOf(5), flags: { ...snapshotOf(5).flags, counted } };
    const { client: booted } = harness(() => 'hang', { bootstrap });
    clients.push(booted);
    await booted.ready();
    const view = forContext(booted, { userId: 'u' });
    view.get('checkout');
    expect(reads).toBe(0);
    view.get('counted');
    view.get('counted');
    expect(reads).toBe(1);
    expect(forContext(client, {}).get('banner')).toBe('hello');
  });
});

describe('server rendering with views (docs/client.md, Per-request evaluation)', () => {
  it('the browser client started with a view’s getAll() as defaults serves those values, and its first snapshot keeps them', async () => {
    const { client: server } = await serverClient();
    const context = { userId: 'visitor-42', attributes: { plan: 'free' } };
    const initialValues = forContext(server, context).getAll();

    const plane = fakeDataPlane(snapshotOf(1));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const { client: browser } = harness(async (request) => {
      await answered;
      return plane.handler(request);
    }, { context, defaults: initialValues, pollInterval: 0 });
    clients.push(browser);
    expect(browser.getAll()).toEqual(initialValues);
    const heard = vi.fn();
    browser.subscribe(heard);
    const before = Object.fromEntries(Object.keys(initialValues).map((key) => [key, browser.get(key)]));
    expect(browser.getDetails('checkout')).toMatchObject({ reason: 'ERROR', errorCode: 'PROVIDER_NOT_READY' });
    answer();
    await browser.ready();
    expect(browser.getAll()).toEqual(initialValues);
    for (const key of Object.keys(initialValues)) expect(browser.get(key)).toBe(before[key]);
    expect(browser.getDetails('checkout')).toMatchObject({ reason: 'SPLIT', version: 1 });
    // Heard (the reason changed), with values that did not.
    expect(new Set(heard.mock.calls.flatMap(([event]) => [...event.changed]))).toEqual(new Set(Object.keys(initialValues)));
  });

  it('a server key runs in Node, where there is no document', () => {
    expect(typeof document).toBe('undefined');
    const { client } = harness(() => 'hang', { sdkKey: 'svc_sdk_server_backend_0001' });
    clients.push(client);
    expect(client.getStatus().status).toBe('initializing');
  });
});

describe('forContext(client, context) of a client flagplane did not make', () => {
  it('serves every read its fallback, never throws, and keeps the context it was given', () => {
    // A hand-written stand-in with the client's shape, as an app's own mock might be.
    const mock = { get: () => 'mocked', getDetails: () => ({}), getAll: () => ({}), getContext: () => ({}) } as unknown as FlagsClient;
    const context = { userId: 'u1', attributes: { plan: 'pro' } };
    const view = forContext(mock, context);
    expect(view.get('banner', 'fallback')).toBe('fallback');
    expect(view.getDetails('banner', 'fallback')).toEqual({ key: 'banner', value: 'fallback', reason: 'ERROR', variation: null, version: null, errorCode: 'PROVIDER_NOT_READY' });
    expect(view.getAll()).toEqual({});
    expect(view.getContext()).toBe(context);
  });
});
