import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import { MAX_BATCH_EVENTS } from '../../src/events/event-batches';
import { response } from '../helpers/fake-transport';
import { eventsOf, eventsClient, fakePage, status, scriptedSender } from './fixtures';
import type { FlagplaneError } from '../../src/shared/errors';
import { createEventSender } from '../../src/events/event-sender';
import type { SendOutcome } from '../../src/http/http-client';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('flush concurrency and retries', () => {
  it('flush() asked for while a failing flush is in flight waits for the backoff instead of resending at once', async () => {
    const { client, plane, errors, eventRequests } = await eventsClient();
    plane.eventsStatus = 503;
    client.get('flag-0');
    // Five flushes asked for in the same tick, while the server is down.
    await Promise.all([client.flush(), client.flush(), client.flush(), client.flush(), client.flush()]);
    // Expected: one failed request, one report, and a retry 1 s later (events.md: "retries
    // after 1 s, 2 s, 4 s …"). Before the fix: five back-to-back requests with no delay between
    // them, five identical reports, and the next retry pushed out to 16 s.
    expect(eventRequests()).toHaveLength(1);
    expect(errors.filter((error) => /answered 503/.test(error.message))).toHaveLength(1);
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(1000);
    expect(plane.events).toHaveLength(1);
    await client.close();
  });

  it('a 429 or 503 with Retry-After delays the retry (protocol.md §5: "A client honours Retry-After on 429 and 503")', async () => {
    const { client, control, plane, eventRequests } = await eventsClient({ pollInterval: 0 });
    control.hold = true;
    client.get('flag-0');
    const flushed = client.flush();
    await vi.advanceTimersByTimeAsync(0);
    control.hold = false;
    control.held[0]!.answer(response(429, '{"error":{"code":"rate_limited","message":"slow down"}}', { 'retry-after': '30' }));
    await flushed;
    await vi.advanceTimersByTimeAsync(29_999);
    // Before the fix: the events route ignores Retry-After and retries after 1 s.
    expect(eventRequests()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(plane.events).toHaveLength(1);
    await client.close();
  });

  it('flush() during a pending retry sends at once, and leaves no retry timer behind', async () => {
    const { client, plane, eventRequests } = await eventsClient();
    plane.eventsStatus = 503;
    client.get('flag-0');
    await client.flush();
    expect(vi.getTimerCount()).toBe(2); // poll + events retry
    plane.eventsStatus = 202;
    await client.flush();
    expect(plane.events.map((event) => event.key)).toEqual(['flag-0']);
    expect(vi.getTimerCount()).toBe(1); // the poll timer only
    await vi.advanceTimersByTimeAsync(120_000);
    expect(eventRequests()).toHaveLength(2);
    await client.close();
  });

  it('retries after 1 s, 2 s, 4 s while the server stays down; a success resets the sequence', async () => {
    const { client, plane, eventRequests } = await eventsClient({ pollInterval: 0 });
    plane.eventsStatus = 500;
    client.get('flag-0');
    await client.flush();
    const count = () => eventRequests().length;
    await vi.advanceTimersByTimeAsync(999);
    expect(count()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(count()).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(count()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(count()).toBe(3);
    await vi.advanceTimersByTimeAsync(3999);
    expect(count()).toBe(3);
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(1);
    expect(plane.events).toHaveLength(1);
    // Reset: the next failure is retried after 1 s again.
    plane.eventsStatus = 500;
    client.get('flag-1');
    await client.flush();
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(1000);
    expect(plane.events.map((event) => event.key)).toEqual(['flag-0', 'flag-1']);
    expect(vi.getTimerCount()).toBe(0);
    await client.close();
  });

  it('a batch refused mid-flush goes back in front of the later batches, in order', async () => {
    const answers = [202, 503, 202, 202];
    const { sender, sent, errors } = scriptedSender(() => status(answers.shift()!));
    const all = Array.from({ length: 1000 }, (_, i): DiagnosticEvent => ({ type: 'unregistered_flag', key: `k${i}` }));
    for (const event of all) sender.push(event);
    await sender.flush(); // batch 1 sent, batch 2 refused: put back, batch 3 never tried
    expect(sent).toEqual(all.slice(0, MAX_BATCH_EVENTS));
    await sender.flush();
    expect(sent).toEqual(all);
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/answered 503/)]);
    await sender.close();
  });

  it('a 4xx drops only its own batch: events pushed while it was in flight, and later ones, are sent', async () => {
    const { client, control, plane, errors } = await eventsClient();
    control.hold = true;
    client.get('flag-0');
    const first = client.flush();
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-1'); // while the request is in flight
    control.hold = false;
    control.held[0]!.answer(response(400, '{"error":{"code":"invalid_batch","message":"nope"}}'));
    await first;
    expect(errors.map((error) => error.message)).toEqual(['dropped 1 events the server rejected: POST /sdk/v1/events answered 400: nope']);
    client.get('flag-2');
    await client.flush();
    expect(plane.events.map((event) => event.key)).toEqual(['flag-1', 'flag-2']);
    await client.close();
  });

  it('flushAt 1 with flushInterval 0: every read is sent, reads made while one is in flight follow in order, no timer', async () => {
    const { client, control, plane, eventRequests } = await eventsClient({ flushAt: 1, pollInterval: 0 });
    control.hold = true;
    client.get('flag-0');
    await vi.advanceTimersByTimeAsync(0);
    expect(eventRequests()).toHaveLength(1);
    client.get('flag-1');
    client.get('flag-2');
    expect(vi.getTimerCount()).toBe(1); // the request timeout of the request in flight
    control.hold = false;
    control.held[0]!.answer(response(202, '{"accepted":1}'));
    await vi.advanceTimersByTimeAsync(0);
    expect(eventRequests().map((request) => eventsOf(request).map((event) => event.key))).toEqual([['flag-0'], ['flag-1', 'flag-2']]);
    expect(plane.events.map((event) => event.key)).toEqual(['flag-1', 'flag-2']); // the held one was answered by the test
    expect(vi.getTimerCount()).toBe(0);
    await client.close();
  });

  it('the 1,000 bound counts a put-back batch; the count is reported once, at the next flush', async () => {
    let fail = true;
    const { sender, sent, errors } = scriptedSender(() => status(fail ? 503 : 202));
    for (let i = 0; i < 600; i++) sender.push({ type: 'unregistered_flag', key: `a${i}` });
    await sender.flush(); // 500 refused, 100 never tried: 600 back in the buffer
    for (let i = 0; i < 500; i++) sender.push({ type: 'unregistered_flag', key: `b${i}` });
    fail = false;
    await sender.flush();
    expect(sent).toHaveLength(1000);
    expect(sent[0]).toEqual({ type: 'unregistered_flag', key: 'a100' });
    expect(sent.at(-1)).toEqual({ type: 'unregistered_flag', key: 'b499' });
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/answered 503/),
      'dropped the 100 oldest events: the buffer holds at most 1000',
    ]);
  });
});

describe('close(): the last flush', () => {
  it('twice: one keepalive request, both resolve, no timer left, nothing buffered afterwards', async () => {
    const { client, plane, eventRequests } = await eventsClient({ flushInterval: 5000 });
    client.get('flag-0');
    expect(vi.getTimerCount()).toBe(2); // poll + flush interval
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(eventRequests()).toHaveLength(1);
    expect(plane.batches[0]!.keepalive).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    client.get('flag-1');
    client.get('unknown');
    await client.flush();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(eventRequests()).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('during a retry wait: sends at once with keepalive and leaves no retry timer', async () => {
    const { client, plane, eventRequests } = await eventsClient();
    plane.eventsStatus = 503;
    client.get('flag-0');
    await client.flush();
    expect(vi.getTimerCount()).toBe(2);
    plane.eventsStatus = 202;
    await client.close();
    expect(plane.batches).toEqual([expect.objectContaining({ keepalive: true, events: [expect.objectContaining({ key: 'flag-0' })] })]);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(eventRequests()).toHaveLength(2);
  });

  it('whose last flush fails: reports it, arms no retry timer', async () => {
    const { client, plane, errors, eventRequests } = await eventsClient();
    plane.eventsStatus = 503;
    client.get('flag-0');
    await client.close();
    expect(errors.at(-1)!.message).toMatch(/answered 503/);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(eventRequests()).toHaveLength(1);
  });

  it('after a failed last flush, a later flush() makes no request ("one last time")', async () => {
    const { client, plane, eventRequests } = await eventsClient();
    plane.eventsStatus = 503;
    client.get('flag-0');
    await client.close();
    plane.eventsStatus = 202;
    await client.flush();
    // Before the fix: a second, non-keepalive request after close() sends the "gone" events.
    expect(eventRequests()).toHaveLength(1);
  });

  it('close() during an in-flight flush still resolves within requestTimeout', async () => {
    const { client, control } = await eventsClient({ requestTimeout: 10_000 });
    control.hold = true; // the events route never answers
    client.get('flag-0');
    void client.flush();
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-1');
    let closed = false;
    void client.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(10_000);
    // Before the fix: close() chains its keepalive flush behind the hanging request; it resolves
    // only after 2 × requestTimeout (20 s), more with more batches.
    expect(closed).toBe(true);
  });

  it('identify() after close(): resolves, no request, no event, no timer', async () => {
    const { client, requests, plane } = await eventsClient();
    await client.close();
    const before = requests.length;
    await expect(client.identify('late-user', { plan: 'pro' })).resolves.toBeUndefined();
    await client.flush();
    expect(requests.length).toBe(before);
    expect(plane.events).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('page unload: the keepalive flush', () => {
  it('pagehide then visibilitychange in one unload: one keepalive request with every event', async () => {
    const page = fakePage();
    const { client, plane, eventRequests } = await eventsClient();
    client.get('flag-0');
    client.get('flag-1');
    page.pagehide();
    page.hide();
    await vi.advanceTimersByTimeAsync(0);
    expect(eventRequests()).toHaveLength(1);
    expect(plane.batches).toEqual([expect.objectContaining({ keepalive: true })]);
    expect(plane.events.map((event) => event.key)).toEqual(['flag-0', 'flag-1']);
    await client.close();
  });

  it('events read while a keepalive flush is in flight go out in the same flush, with keepalive', async () => {
    const page = fakePage();
    const { client, control, eventRequests } = await eventsClient();
    control.hold = true;
    client.get('flag-0');
    page.pagehide();
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-1');
    control.hold = false;
    control.held[0]!.answer(response(202, '{"accepted":1}'));
    await vi.advanceTimersByTimeAsync(0);
    expect(eventRequests().map((request) => [request.keepalive, eventsOf(request).map((event) => event.key)])).toEqual([
      [true, ['flag-0']],
      [true, ['flag-1']],
    ]);
    await client.close();
  });

  it('pagehide while a regular flush is in flight sends the buffered events with keepalive at once', async () => {
    const page = fakePage();
    const { client, control, eventRequests } = await eventsClient();
    control.hold = true;
    client.get('flag-0');
    void client.flush(); // a regular (non-keepalive) flush, in flight
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-1');
    page.pagehide();
    await vi.advanceTimersByTimeAsync(0);
    // Before the fix: the keepalive flush is chained behind the request in flight, so nothing goes
    // out until it settles — in a real unload, never: the page is gone first, and with it
    // flag-1 (and the non-keepalive request's own events).
    expect(eventRequests().map((request) => [request.keepalive === true, eventsOf(request).map((event) => event.key)])).toEqual([
      [false, ['flag-0']],
      [true, ['flag-1']],
    ]);
    // close() waits for the sends in flight: answer them.
    for (const { answer } of control.held) answer(response(202, '{}'));
    await client.close();
  });

  it('events buffered before pagehide are not sent without keepalive by the flush in flight', async () => {
    const page = fakePage();
    const { client, control, eventRequests } = await eventsClient();
    control.hold = true;
    client.get('flag-0');
    void client.flush();
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-1');
    page.pagehide();
    control.hold = false;
    control.held[0]!.answer(response(202, '{"accepted":1}'));
    await vi.advanceTimersByTimeAsync(0);
    // Before the fix: the flush in flight drains flag-1 in its own loop without keepalive, and the
    // keepalive flush asked for by pagehide then finds the buffer empty.
    expect(eventRequests()[1]!.keepalive).toBe(true);
    for (const { answer } of control.held) answer(response(202, '{}'));
    await client.close();
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
      offline: () => false,
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
