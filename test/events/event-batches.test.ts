import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_BATCH_BYTES, MAX_BATCH_EVENTS, batchLength } from '../../src/events/event-batches';
import { eventsClient, status, scriptedSender } from './fixtures';
import type { DiagnosticEvent } from '../../src/events/diagnostic-events';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();
afterEach(() => {
  vi.unstubAllGlobals();
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
