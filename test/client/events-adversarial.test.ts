import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateEventBatch } from '../../reference-server/validation/event-batch';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import { MAX_BATCH_BYTES, MAX_BATCH_EVENTS, batchLength } from '../../src/events/event-batches';
import { FlagplaneError } from '../../src/shared/errors';
import { createEventSender } from '../../src/events/event-sender';
import type { SendOutcome } from '../../src/http/http-client';
import type { HttpRequest } from '../../src/http/http-types';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import type { StorageAdapter } from '../../src/storage/storage-types';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { byPlan, dataPlaneClient, fakeDataPlane } from '../helpers/events-server';
import { jsonResponse, response, type Reply } from '../helpers/fake-transport';
import { servingFlag, snapshotOf } from '../helpers/snapshots';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const keys = (n: number) => Array.from({ length: n }, (_, i) => `flag-${i}`);
const snapshot = snapshotOf(1, Object.fromEntries(keys(30).map((key) => [key, true])));
const isEvents = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/events';
const isIdentity = (request: HttpRequest) => new URL(request.url).pathname === '/sdk/v1/identity';
const eventsOf = (request: HttpRequest) => (JSON.parse(request.body!) as { events: Array<Record<string, unknown>> }).events;

/**
 * A data plane (fakeDataPlane) whose events route can be held: while `hold` is on, each
 * events request waits in `held` until the test answers it. With `validate`, the events
 * route checks each batch as the reference server does (reference-server/event-batch-validation).
 */
function controlledPlane(options: { validate?: boolean; snapshot?: FlagSnapshot }) {
  const plane = fakeDataPlane(options.snapshot ?? snapshot);
  const control = {
    plane,
    held: [] as Array<{ request: HttpRequest; answer: (reply: Reply) => void }>,
    hold: false,
    handler(request: HttpRequest): Reply | Promise<Reply> {
      if (isEvents(request)) {
        if (options.validate) {
          const check = validateEventBatch(JSON.parse(request.body!));
          if (!check.ok) return jsonResponse(400, { error: { code: 'invalid_batch', message: check.message, path: check.path } });
        }
        if (control.hold) return new Promise<Reply>((answer) => control.held.push({ request, answer }));
      }
      return plane.handler(request);
    },
  };
  return control;
}

async function eventsClient(options: Record<string, unknown> = {}, planeOptions: { validate?: boolean; snapshot?: FlagSnapshot } = {}) {
  const control = controlledPlane(planeOptions);
  const h = harness(control.handler, { events: true, flushInterval: 0, context: { userId: 'u1' }, ...options });
  await h.client.ready();
  return { ...h, control, plane: control.plane, eventRequests: () => h.requests.filter(isEvents) };
}

/** `pagehide` on a stand-in window and `visibilitychange` on a stand-in document (this file runs in node). */
function fakePage() {
  const win = new EventTarget();
  const doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
  vi.stubGlobal('addEventListener', win.addEventListener.bind(win));
  vi.stubGlobal('removeEventListener', win.removeEventListener.bind(win));
  vi.stubGlobal('document', doc);
  return {
    pagehide: () => win.dispatchEvent(new Event('pagehide')),
    hide: () => {
      doc.visibilityState = 'hidden';
      doc.dispatchEvent(new Event('visibilitychange'));
    },
  };
}

const status = (code: number): SendOutcome => ({ kind: 'response', status: code, body: '', header: () => null });

/** An event sender on a scripted HTTP client and a recording scheduler. */
function scriptedSender(answer: (body: string) => SendOutcome | Promise<SendOutcome>, sdkKey = 'key') {
  const sent: DiagnosticEvent[] = [];
  const errors: FlagplaneError[] = [];
  const sender = createEventSender({
    sdkKey,
    flushAt: 5000,
    flushInterval: 0,
    http: {
      send: async (_route, request) => {
        const outcome = await answer(request!.body!);
        if (outcome.kind === 'response' && outcome.status === 202) sent.push(...(JSON.parse(request!.body!) as { events: DiagnosticEvent[] }).events);
        return outcome;
      },
      abort: () => undefined,
    },
    scheduler: { setTimeout: () => 1, clearTimeout: () => undefined, now: () => 0, random: () => 0 },
    report: (error) => errors.push(error),
  });
  return { sender, sent, errors };
}

// ---------------------------------------------------------------------------------------

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

describe('close()', () => {
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

describe('page unload', () => {
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

describe('events the server would reject never enter the buffer (one would cost its whole batch)', () => {
  it('reading an empty or over-long key buffers no event the server would refuse: the batch is kept', async () => {
    const { client, plane, errors } = await eventsClient({}, { validate: true });
    client.get('flag-0');
    client.get('');
    client.get('k'.repeat(300));
    client.get('flag-1');
    await client.flush();
    // Before the fix: 400 `events[1].key must be a string of 1 to 256 characters`, all 4 dropped.
    expect(errors).toEqual([]);
    expect(plane.events.map((event) => event.key)).toEqual(['flag-0', 'flag-1']);
    await client.close();
  });

  it('identify() with more than 100 traits is a ConfigError and queues nothing the server would refuse (events.md: "no event that cannot be sent enters the buffer")', async () => {
    const { client, plane, errors } = await eventsClient({ remoteTraits: false }, { validate: true });
    client.get('flag-0');
    const traits = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`t${i}`, i]));
    await client.identify('u-traits', traits);
    client.get('flag-1');
    await client.flush();
    // Before the fix: 400 `events[1].traits must have at most 100 members`; both reads are lost too.
    expect(errors.map((error) => error.message)).toEqual(['identify needs traits that are a JSON object of at most 100 members']);
    expect(plane.events.map((event) => event.type)).toEqual(['evaluation', 'error', 'evaluation']);
    await client.close();
  });

  it('a context userId over 256 characters (setContext) is left out of evaluation events, which the server then takes', async () => {
    const { client, plane } = await eventsClient({}, { validate: true });
    client.get('flag-0');
    client.setContext({ userId: 'u'.repeat(300) });
    client.get('flag-1');
    await client.flush();
    expect(plane.events.map((event) => event.key)).toContain('flag-0');
    await client.close();
  });
});

describe('batch edges', () => {
  const sentAt = '2026-01-01T00:00:00.000Z';
  const body = (events: string[]) => `{"sentAt":"${sentAt}","events":[${events}]}`;
  /** An error event whose JSON is exactly `bytes` long. */
  const sized = (bytes: number) => {
    const shell = JSON.stringify({ type: 'error', message: '' }).length;
    return JSON.stringify({ type: 'error', message: 'x'.repeat(bytes - shell) });
  };

  it('exactly 500 events go in one batch, 501 in two', () => {
    const events = Array.from({ length: 501 }, (_, i) => JSON.stringify({ type: 'unregistered_flag', key: `k${i}` }));
    expect(batchLength(events.slice(0, 500))).toBe(MAX_BATCH_EVENTS);
    expect(batchLength(events)).toBe(MAX_BATCH_EVENTS);
  });

  it('around 60,000 bytes: a batch never exceeds the limit and is filled to within two bytes of it', () => {
    for (let total = MAX_BATCH_BYTES - 3; total <= MAX_BATCH_BYTES + 3; total++) {
      // Two events whose batch body is exactly `total` bytes.
      const first = sized(30_000);
      const second = sized(total - body([first, '']).length);
      const pair = [first, second];
      expect(Buffer.byteLength(body(pair))).toBe(total);
      const n = batchLength(pair);
      expect(Buffer.byteLength(body(pair.slice(0, n)))).toBeLessThanOrEqual(MAX_BATCH_BYTES);
      // The sizing keeps two bytes of slack (it counts the 49-byte shell as 50, and a comma
      // before the first event): a body of 59,999 or 60,000 bytes is split.
      expect(n).toBe(total <= MAX_BATCH_BYTES - 2 ? 2 : 1);
    }
  });

  it('a flush of 1,000 large events stays within both limits per request, in order', async () => {
    const bodies: string[] = [];
    const { sender, sent } = scriptedSender((body) => (bodies.push(body), status(202)));
    for (let i = 0; i < 1000; i++) sender.push({ type: 'error', message: `${i}:${'ü'.repeat(150)}` });
    await sender.flush();
    expect(sent.map((event) => (event as { message: string }).message.split(':')[0])).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
    expect(bodies.length).toBeGreaterThan(2);
    for (const body of bodies) {
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BATCH_BYTES);
      expect((JSON.parse(body) as { events: unknown[] }).events.length).toBeLessThanOrEqual(MAX_BATCH_EVENTS);
    }
  });
});

describe('error events', () => {
  it('replace every occurrence of the SDK key, then cut the message at 2,048 characters', async () => {
    const { sender, sent } = scriptedSender(() => status(202), CLIENT_KEY);
    sender.error(new FlagplaneError('http', `${CLIENT_KEY} / ${CLIENT_KEY}${CLIENT_KEY} and ${CLIENT_KEY}`));
    // The key straddles the 2,048th character: no prefix of it may survive the cut.
    sender.error(new FlagplaneError('http', `${'a'.repeat(2040)}${CLIENT_KEY}${CLIENT_KEY}`));
    await sender.flush();
    expect(sent[0]).toEqual({ type: 'error', message: '[sdk key] / [sdk key][sdk key] and [sdk key]' });
    const long = (sent[1] as { message: string }).message;
    expect(long).toHaveLength(2048);
    expect(long).toBe(`${'a'.repeat(2040)}[sdk key`);
    expect(JSON.stringify(sent)).not.toContain(CLIENT_KEY.slice(0, 12));
  });

  it('an onError handler that throws loses no event and stops nothing', async () => {
    const plane = fakeDataPlane(snapshot);
    const { client } = harness(plane.handler, {
      events: true,
      flushInterval: 0,
      onError: () => {
        throw new Error('handler broke');
      },
    });
    await client.ready();
    await client.identify('');
    client.get('flag-0');
    await client.flush();
    expect(plane.events.map((event) => event.type)).toEqual(['error', 'evaluation']);
    await client.close();
  });
});

// ---------------------------------------------------------------------------------------

const early: Flag = {
  ...servingFlag('no'),
  variations: ['no', 'yes'],
  fallthrough: { variation: 0 },
  rules: [{ id: 'early', conditions: [{ kind: 'attribute', attribute: 'signup', op: 'before', values: ['2025-01-01'] }], serve: { variation: 1 } }],
};
const identitySnapshot: FlagSnapshot = { schemaVersion: 1, version: 1, environmentId: 'production', flags: { pro: byPlan('pro'), team: byPlan('team'), early } };

const identityClient = (options: Record<string, unknown> = {}) => dataPlaneClient(identitySnapshot, options);

describe('identify()', () => {
  it('A, B, A in quick succession with the overlays answered in reverse order: only the last request applies', async () => {
    const { client, plane, requests } = await identityClient();
    const pending: Array<(reply: Reply) => void> = [];
    plane.identityReply = () => new Promise((resolve) => pending.push(resolve));
    const a1 = client.identify('A');
    const b = client.identify('B');
    const a2 = client.identify('A');
    await vi.advanceTimersByTimeAsync(0);
    const identity = requests.filter(isIdentity);
    expect(identity.map((request) => request.signal.aborted)).toEqual([true, true, false]);
    // The newest first, then the stale ones: a stale answer for A must not replace A's latest.
    pending[2]!(jsonResponse(200, { userId: 'A', traits: { plan: 'team' } }));
    pending[1]!(jsonResponse(200, { userId: 'B', traits: { plan: 'pro' } }));
    pending[0]!(jsonResponse(200, { userId: 'A', traits: { plan: 'pro' } }));
    await Promise.all([a1, b, a2]);
    expect(client.getContext()).toEqual({ userId: 'A', attributes: { plan: 'team' }, segmentIds: [] });
    expect(client.get('team')).toBe('yes');
    await client.flush();
    expect(plane.events.filter((event) => event.type === 'identify').map((event) => event.userId)).toEqual(['A', 'B', 'A']);
    await client.close();
  });

  it('setContext() between identify() and its overlay: another user discards it; the same user gets it under the new attributes', async () => {
    const { client, plane } = await identityClient();
    let answer!: (reply: Reply) => void;
    plane.identityReply = () => new Promise((resolve) => (answer = resolve));
    const first = client.identify('u-1', { plan: 'free' });
    await vi.advanceTimersByTimeAsync(0);
    client.setContext({ userId: 'someone-else' });
    answer(jsonResponse(200, { userId: 'u-1', traits: { plan: 'pro' } }));
    await first;
    expect(client.getContext()).toEqual({ userId: 'someone-else' });

    const second = client.identify('u-2', { plan: 'free' });
    await vi.advanceTimersByTimeAsync(0);
    client.setContext({ userId: 'u-2', attributes: { country: 'DE' } });
    answer(jsonResponse(200, { userId: 'u-2', traits: { plan: 'pro', country: 'FR' } }));
    await second;
    expect(client.getContext()).toEqual({ userId: 'u-2', attributes: { plan: 'pro', country: 'DE' } });
    await client.close();
  });

  it('an overlay answering for another user than asked is reported, not applied', async () => {
    const { client, plane, errors } = await identityClient();
    plane.identityReply = () => jsonResponse(200, { userId: 'not-me', traits: { plan: 'pro' } });
    await client.identify('me', { plan: 'free' });
    expect(client.getContext().attributes).toEqual({ plan: 'free' });
    expect(errors.map((error) => error.name)).toEqual(['SchemaError']);
    await client.close();
  });

  it('with events: false: the overlay still applies, no events request is made', async () => {
    const { client, plane, requests } = await identityClient({ events: false });
    plane.overlays['u-5'] = { plan: 'pro' };
    await client.identify('u-5');
    expect(client.get('pro')).toBe('yes');
    await client.flush();
    await client.close();
    expect(requests.filter(isEvents)).toEqual([]);
  });

  it('identify() never throws for a userId that is not a string and has no string form', async () => {
    const { client, errors } = await identityClient({ remoteTraits: false });
    const identify = client.identify as (userId: unknown) => Promise<void>;
    // Before the fix: building the message calls String(userId), which throws a TypeError for a
    // null-prototype object, and identify() rejects instead of reporting a ConfigError.
    await expect(identify(Object.create(null))).resolves.toBeUndefined();
    expect(errors.map((error) => error.name)).toEqual(['ConfigError']);
    await client.close();
  });

  it('traits with a getter that always throws: a ConfigError, the call is ignored', async () => {
    const { client, errors, plane } = await identityClient({ remoteTraits: false });
    const traits = {
      get plan(): string {
        throw new Error('no plan');
      },
    };
    await expect(client.identify('u-6', traits)).resolves.toBeUndefined();
    expect(errors.map((error) => error.message)).toEqual(['identify needs traits that are a JSON object (no plan)']);
    expect(client.getContext()).toStrictEqual({ userId: undefined, attributes: {}, segmentIds: [] });
    await client.flush();
    expect(plane.events.map((event) => event.type)).toEqual(['error']);
    await client.close();
  });

  it('traits with toJSON returning an object: the identify event carries what toJSON gives', async () => {
    const { client, plane } = await identityClient({ remoteTraits: false });
    await client.identify('u-7', { toJSON: () => ({ plan: 'team' }) } as unknown as Record<string, string>);
    await client.flush();
    expect(plane.events).toEqual([{ type: 'identify', userId: 'u-7', traits: { plan: 'team' } }]);
    await client.close();
  });

  it('identify() never throws, even for traits whose getter throws only on a later read', async () => {
    const { client, errors } = await identityClient({ remoteTraits: false });
    let reads = 0;
    const traits = {
      get plan(): string {
        if (++reads > 1) throw new Error('gone');
        return 'pro';
      },
    };
    // The traits are read once, into the JSON the event sends and the context holds.
    await expect(client.identify('u-8', traits)).resolves.toBeUndefined();
    expect(errors).toEqual([]);
    expect(client.getContext().attributes).toEqual({ plan: 'pro' });
    await client.close();
  });

  it('identify() evaluates with the traits it sends: a Date trait', async () => {
    const { client, plane } = await identityClient({ remoteTraits: false });
    await client.identify('u-9', { signup: new Date('2024-06-01T00:00:00Z') } as unknown as Record<string, string>);
    await client.flush();
    // The event carries the JSON form, "2024-06-01T00:00:00.000Z", which is before 2025-01-01…
    expect(plane.events[0]).toEqual({ type: 'identify', userId: 'u-9', traits: { signup: '2024-06-01T00:00:00.000Z' } });
    // …but the context keeps the Date object, which no operator understands: the rule never
    // matches, and nothing is reported. Expected: the context holds the traits as sent.
    expect(client.getContext().attributes).toEqual(plane.events[0]!.traits);
    expect(client.get('early')).toBe('yes');
    await client.close();
  });
});

describe('the anonymous id with an async storage', () => {
  const asyncStorage = (get: () => Promise<string | null>) => {
    const writes: Array<[string, string]> = [];
    const storage: StorageAdapter = {
      get: (key) => (key === 'svc:anonymousId' ? get() : Promise.resolve(null)),
      set: async (key, value) => {
        writes.push([key, value]);
      },
      remove: async () => undefined,
    };
    return { storage, writes };
  };
  const anonClient = async (storage: StorageAdapter) => {
    const plane = fakeDataPlane(snapshot);
    const h = harness(plane.handler, { events: true, flushInterval: 0, cache: storage, anonymousId: undefined });
    return { ...h, plane };
  };

  it('that rejects: a StorageError is reported, the generated id keeps serving and is not written', async () => {
    const { storage, writes } = asyncStorage(() => Promise.reject(new Error('quota')));
    const { client, errors, plane } = await anonClient(storage);
    await client.ready();
    client.get('flag-0');
    await client.flush();
    expect(errors.map((error) => [error.name, error.message])).toEqual([['StorageError', 'reading "svc:anonymousId" failed: quota']]);
    const userId = plane.events.find((event) => event.type === 'evaluation')!.userId as string;
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(writes.filter(([key]) => key === 'svc:anonymousId')).toEqual([]);
    await client.close();
  });

  it('that answers a stored id late: reads before use the generated id, reads after the stored one', async () => {
    let answer!: (value: string | null) => void;
    const { storage } = asyncStorage(() => new Promise((resolve) => (answer = resolve)));
    const { client, plane } = await anonClient(storage);
    await client.ready();
    client.get('flag-0');
    answer('stored-visitor');
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-0');
    await client.flush();
    const ids = plane.events.filter((event) => event.type === 'evaluation').map((event) => event.userId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe('stored-visitor');
    expect(ids[1]).toBe('stored-visitor');
    await client.close();
  });

  it('that answers a value over 256 characters: the generated id stays and replaces it', async () => {
    const { storage, writes } = asyncStorage(() => Promise.resolve('v'.repeat(257)));
    const { client, plane, errors } = await anonClient(storage);
    await client.ready();
    await vi.advanceTimersByTimeAsync(0);
    client.get('flag-0');
    await client.flush();
    const userId = plane.events.find((event) => event.type === 'evaluation')!.userId as string;
    expect(userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(writes.filter(([key]) => key === 'svc:anonymousId')).toEqual([['svc:anonymousId', userId]]);
    expect(errors).toEqual([]);
    await client.close();
  });

  it('that answers after close(): nothing throws, no request, no timer, no event', async () => {
    let answer!: (value: string | null) => void;
    const { storage } = asyncStorage(() => new Promise((resolve) => (answer = resolve)));
    const { client, requests, errors } = await anonClient(storage);
    await client.ready();
    await client.close();
    const before = requests.length;
    answer('stored-after-close');
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('flag-0')).toBe(true);
    await client.flush();
    expect(requests.length).toBe(before);
    expect(vi.getTimerCount()).toBe(0);
    expect(errors).toEqual([]);
  });
});
