import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_BATCH_BYTES, MAX_BATCH_EVENTS, batchLength } from '../../src/events/event-batches';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import type { FlagplaneError } from '../../src/shared/errors';
import { createEventSender } from '../../src/events/event-sender';
import type { SendOutcome } from '../../src/http/http-client';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { snapshotOf } from '../helpers/snapshots';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `flag-${i}`);
const snapshot = snapshotOf(1, Object.fromEntries(keys(30).map((key) => [key, true])));

async function withEvents(options: Record<string, unknown> = {}) {
  const plane = fakeDataPlane(snapshot);
  const h = harness(plane.handler, { events: true, context: { userId: 'u1' }, ...options });
  await h.client.ready();
  return { ...h, plane };
}

describe('the event buffer', () => {
  it('flushes a batch { sentAt, events } when it holds flushAt events', async () => {
    const { client, plane } = await withEvents({ flushAt: 3, flushInterval: 0 });
    for (const key of keys(2)) client.get(key);
    await vi.advanceTimersByTimeAsync(0);
    expect(plane.batches).toHaveLength(0);
    client.get('flag-2');
    await vi.advanceTimersByTimeAsync(0);
    expect(plane.batches).toHaveLength(1);
    expect(plane.batches[0]!.sentAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(plane.batches[0]!.events).toEqual(
      keys(3).map((key) => ({ type: 'evaluation', key, reason: 'DEFAULT', value: true, userId: 'u1' })),
    );
    await client.close();
  });

  it('flushes every flushInterval while events wait, and keeps no timer when idle', async () => {
    const { client, plane } = await withEvents({ flushInterval: 5000 });
    expect(vi.getTimerCount()).toBe(1); // the poll timer only
    client.get('flag-0');
    await vi.advanceTimersByTimeAsync(4999);
    expect(plane.batches).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(plane.events).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
    await client.close();
  });

  // The read path skips a read already reported by a mark kept beside the flag's details
  // (user and flush window): each of these would be lost if the mark outlived what it names.
  it('reports a read again in the next flush window, for another user, and after the value changes', async () => {
    const { client, plane } = await withEvents({ flushInterval: 0, remoteTraits: false });
    const evaluations = () => plane.events.filter((event) => event.type === 'evaluation').map((event) => [event.key, event.value, event.userId]);
    for (let i = 0; i < 3; i++) client.get('flag-0');
    await client.flush();
    expect(evaluations()).toEqual([['flag-0', true, 'u1']]);
    client.get('flag-0'); // a new window: reported again, once
    client.get('flag-0');
    await client.identify('u2');
    client.get('flag-0');
    await client.identify('u1');
    client.get('flag-0'); // u1 again in the same window: already reported
    await client.flush();
    expect(evaluations()).toEqual([['flag-0', true, 'u1'], ['flag-0', true, 'u1'], ['flag-0', true, 'u2']]);
    plane.publish(snapshotOf(2, { 'flag-0': false }));
    await client.refresh();
    client.get('flag-0');
    client.get('flag-0');
    await client.flush();
    expect(evaluations().slice(3)).toEqual([['flag-0', false, 'u1']]);
    await client.close();
  });

  it('flushInterval 0 disables the timer; flush() still sends', async () => {
    const { client, plane } = await withEvents({ flushInterval: 0 });
    client.get('flag-0');
    await vi.advanceTimersByTimeAsync(600_000);
    expect(plane.batches).toHaveLength(0);
    await client.flush();
    expect(plane.events).toHaveLength(1);
    await client.close();
  });

  it('a failed flush keeps the batch in order and retries with backoff', async () => {
    const { client, plane, errors } = await withEvents({ flushInterval: 0 });
    plane.eventsStatus = 503;
    client.get('flag-0');
    client.get('flag-1');
    await client.flush();
    expect(errors.at(-1)!.message).toMatch(/POST \/sdk\/v1\/events answered 503/);
    client.get('flag-2');
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(1000);
    expect(plane.events.map((event) => event.key)).toEqual(['flag-0', 'flag-1', 'flag-2']);
    await client.close();
  });

  it('a 4xx drops the batch and reports it; retrying cannot help', async () => {
    const { client, plane, errors } = await withEvents({ flushInterval: 0 });
    plane.eventsStatus = 400;
    client.get('flag-0');
    await client.flush();
    expect(errors.at(-1)!.code).toBe('events');
    expect(errors.at(-1)!.message).toMatch(/dropped 1 events the server rejected/);
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(120_000);
    await client.flush();
    expect(plane.events).toEqual([]);
    await client.close();
  });

  it('is bounded at 1000: the oldest are dropped, counted and reported', async () => {
    const { client, plane, errors } = await withEvents({ flushInterval: 0, flushAt: 5000 });
    for (let i = 0; i < 1003; i++) client.setContext({ userId: `user-${i}` }), client.get('flag-0');
    await client.flush();
    expect(errors.some((error) => error.message === 'dropped the 3 oldest events: the buffer holds at most 1000')).toBe(true);
    expect(plane.events).toHaveLength(1000);
    expect(plane.events[0]!.userId).toBe('user-3');
    await client.close();
  });

  it('close() flushes and resolves when the flush is done; nothing is left running', async () => {
    const { client, plane } = await withEvents({ flushInterval: 0 });
    client.get('flag-0');
    await client.close();
    expect(plane.events).toHaveLength(1);
    expect(plane.batches[0]!.keepalive).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('events: false buffers and sends nothing', async () => {
    const { client, plane } = await withEvents({ events: false });
    client.get('flag-0');
    client.get('missing');
    await client.flush();
    await client.close();
    expect(plane.batches).toEqual([]);
  });

  it('emits version_skew for a version jump, and error events without the SDK key', async () => {
    const { client, plane } = await withEvents({ flushInterval: 0, pollInterval: 1000 });
    plane.publish(snapshotOf(4, { a: 1 }));
    await vi.advanceTimersByTimeAsync(1000);
    client.setContext({});
    client.get('missing-flag');
    await client.flush();
    expect(plane.events).toContainEqual({ type: 'version_skew', previousVersion: 1, currentVersion: 4 });
    expect(plane.events).toContainEqual({ type: 'unregistered_flag', key: 'missing-flag' });
    await client.identify('');
    await client.flush();
    const errorEvent = plane.events.find((event) => event.type === 'error');
    expect(errorEvent?.message).toMatch(/identify needs a userId/);
    expect(JSON.stringify(plane.batches)).not.toContain(CLIENT_KEY);
    await client.close();
  });
});

describe('batchLength (keepalive limit)', () => {
  const big = (i: number): DiagnosticEvent => ({ type: 'error', message: `${i}:${'é'.repeat(900)}` });
  const sentAt = '2026-01-01T00:00:00.000Z';
  // Splits as the sender does, over each event's JSON: each batch takes the leading events that fit.
  const split = (events: DiagnosticEvent[]) => {
    const batches: DiagnosticEvent[][] = [];
    for (const rest = events.map((event) => JSON.stringify(event)); rest.length > 0; ) {
      batches.push(rest.splice(0, batchLength(rest)).map((json) => JSON.parse(json) as DiagnosticEvent));
    }
    return batches;
  };
  const bytes = (events: DiagnosticEvent[]) => Buffer.byteLength(JSON.stringify({ sentAt, events }));

  it('keeps every batch under 500 events and 60,000 UTF-8 bytes, in order', () => {
    const events = Array.from({ length: 300 }, (_, i) => big(i));
    const batches = split(events);
    expect(batches.length).toBeGreaterThan(4);
    for (const batch of batches) expect(bytes(batch)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    expect(batches.flat()).toEqual(events);
    const small = Array.from({ length: 1200 }, (_, i): DiagnosticEvent => ({ type: 'unregistered_flag', key: `k${i}` }));
    expect(split(small).map((batch) => batch.length)).toEqual([MAX_BATCH_EVENTS, MAX_BATCH_EVENTS, 200]);
  });

  it('counts 3- and 4-byte characters, and sends an event too large for any batch alone', () => {
    const wide = Array.from({ length: 40 }, (_, i): DiagnosticEvent => ({ type: 'error', message: `${i}:${'€😀'.repeat(300)}` }));
    const batches = split(wide);
    for (const batch of batches) expect(bytes(batch)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
    // Filled up: one more event would not have fitted.
    expect(bytes([...batches[0]!, batches[1]![0]!])).toBeGreaterThan(MAX_BATCH_BYTES);
    const huge: DiagnosticEvent = { type: 'error', message: 'x'.repeat(MAX_BATCH_BYTES) };
    expect(split([huge, big(1), huge]).map((batch) => batch.length)).toEqual([1, 1, 1]);
  });
});

describe('createEventSender: the bounded buffer', () => {
  const event = (n: number): DiagnosticEvent => ({ type: 'error', message: String(n) });
  const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => event(from + i));

  function sender(answer: () => SendOutcome | Promise<SendOutcome>) {
    const sent: DiagnosticEvent[] = [];
    const errors: FlagplaneError[] = [];
    const events = createEventSender({
      sdkKey: 'key',
      flushAt: 5000,
      flushInterval: 0,
      http: {
        send: async (_route, request) => {
          const outcome = await answer();
          if (outcome.kind === 'response' && outcome.status === 202) sent.push(...JSON.parse(request!.body!).events);
          return outcome;
        },
        abort: () => undefined,
      },
      scheduler: { setTimeout: () => 1, clearTimeout: () => undefined, now: () => 0, random: () => 0 },
      report: (error) => errors.push(error),
    });
    return { events, sent, errors };
  }
  const status = (code: number): SendOutcome => ({ kind: 'response', status: code, body: '', header: () => null });

  it('holds at most 1000: past it the oldest are dropped, counted and reported once', async () => {
    const { events, sent, errors } = sender(() => status(202));
    for (const e of numbers(1, 1003)) events.push(e);
    await events.flush();
    expect(sent).toEqual(numbers(4, 1003));
    expect(errors.map((error) => error.message)).toEqual(['dropped the 3 oldest events: the buffer holds at most 1000']);
    events.push(event(1004));
    await events.flush();
    expect(errors).toHaveLength(1);
    await events.close();
  });

  it('puts a failed batch back in front, in order, within the bound', async () => {
    let release!: (outcome: SendOutcome) => void;
    let answer: () => SendOutcome | Promise<SendOutcome> = () => new Promise((resolve) => (release = resolve));
    const { events, sent, errors } = sender(() => answer());
    events.push(event(1));
    events.push(event(2));
    const flushed = events.flush();
    for (const e of numbers(3, 1001)) events.push(e);
    release(status(503));
    await flushed;
    expect(errors.at(-1)!.message).toMatch(/answered 503/);
    answer = () => status(202);
    await events.flush();
    expect(sent).toEqual(numbers(2, 1001));
    expect(errors.at(-1)!.message).toBe('dropped the 1 oldest events: the buffer holds at most 1000');
    await events.close();
  });
});
