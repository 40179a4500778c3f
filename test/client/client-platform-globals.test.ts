/**
 * A platform without what the client calls (bare Hermes, React Native before 0.74): each
 * missing piece is a ConfigError naming it, thrown before anything starts, or a documented
 * fallback (docs/runtimes.md, "React Native").
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/client';
import { ConfigError } from '../../src/shared/errors';
import { createMemoryStorage } from '../../src/storage/memory-storage';
import { defaultScheduler, type Scheduler } from '../../src/shared/scheduler';
import { overrideGlobal } from '../adapters/global-override';
import { BASE_URL, CLIENT_KEY, servedHarness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

let restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.reverse()) undo();
  restore = [];
});
const remove = (name: string) => restore.push(overrideGlobal(name, { value: undefined, writable: true }));

/** A scheduler that counts the timers armed on it and never fires them. */
function countingScheduler() {
  const armed: number[] = [];
  const scheduler: Scheduler = { ...defaultScheduler, setTimeout: (_callback, ms) => armed.push(ms), clearTimeout: () => {} };
  return { scheduler, armed };
}

const start = (scheduler?: Scheduler) =>
  // The default transport, events, a stream and a cache: every part that could arm something.
  createClient({
    sdkKey: CLIENT_KEY,
    baseUrl: BASE_URL,
    scheduler,
    streamUrl: BASE_URL,
    streamTransport: { connect: () => ({ send() {}, close() {} }) } as never,
    cache: createMemoryStorage(),
  });

describe('a platform without a piece the client needs', () => {
  const cases: Array<[string, () => void]> = [
    ['AbortController', () => remove('AbortController')],
    ['TextEncoder.encodeInto', () => remove('TextEncoder')],
    [
      'TextEncoder.encodeInto',
      // A polyfill with `encode` only (older text-encoding packages): bucketing would throw on every rollout.
      () => restore.push(overrideGlobal('TextEncoder', { value: class { encode = () => new Uint8Array(); }, writable: true })),
    ],
  ];

  it.each(cases)('without %s: a ConfigError naming it, and no timer armed (injected scheduler)', (piece, take) => {
    take();
    const { scheduler, armed } = countingScheduler();
    let thrown: unknown;
    try {
      start(scheduler);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toBe(`flagplane needs ${piece} (docs/runtimes.md)`);
    expect(armed).toEqual([]);
  });

  it.each(cases)('without %s: no timer pending on the platform either (default scheduler, fake timers)', (_piece, take) => {
    take();
    expect(() => start()).toThrow(ConfigError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the check comes before the options: a missing piece is named even when the options are wrong too', () => {
    remove('AbortController');
    expect(() => createClient({ sdkKey: 'nope', baseUrl: 'nope' })).toThrow('flagplane needs AbortController');
  });
});

describe('documented fallbacks', () => {
  it('without a global URL, the pattern alone checks baseUrl and streamUrl: a correct one starts, a wrong one is still named', async () => {
    remove('URL');
    const h = servedHarness(snapshotOf(1, { flag: true }), { streamUrl: 'wss://stream.test/v1', streamTransport: { connect: () => ({ send() {}, close() {} }) } as never });
    await h.client.ready();
    expect(h.client.get('flag', false)).toBe(true);
    await h.client.close();
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: 'flags.test' })).toThrow('baseUrl must be http(s)://host[/path] (got "flags.test")');
  });

  it('with a global URL, it still rejects what the pattern lets through', () => {
    expect(() => createClient({ sdkKey: CLIENT_KEY, baseUrl: 'https://bad:port' })).toThrow('baseUrl must be http(s)://host[/path]');
  });

  it('without crypto.randomUUID, the anonymous id is a v4 UUID from the scheduler’s random, persisted', async () => {
    restore.push(overrideGlobal('crypto', { value: { getRandomValues: crypto.getRandomValues.bind(crypto) }, writable: true }));
    const cache = createMemoryStorage();
    const h = servedHarness(snapshotOf(1, {}), { anonymousId: undefined, cache, scheduler: { ...defaultScheduler, random: () => 0.7 } });
    await h.client.ready();
    expect(cache.get('svc:anonymousId')).toBe('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
    await h.client.close();
  });
});
