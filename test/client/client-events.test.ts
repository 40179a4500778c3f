import { describe, expect, it, vi } from 'vitest';
import { CLIENT_KEY, harness } from '../helpers/client-harness';
import { fakeDataPlane } from '../helpers/events-server';
import { snapshotOf } from '../helpers/snapshots';
import { keys, snapshot } from '../events/fixtures';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';
import { switchableSource } from '../helpers/platform-source';

useFakeTimersInEachTest();

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

  it('sends nothing while offline (flushAt, the interval, a retry): the events wait and go when the device is back', async () => {
    const online = switchableSource(true);
    const { client, plane, requests } = await withEvents({ flushInterval: 5000, flushAt: 2, onlineSource: online.online });
    const sends = () => requests.filter((request) => request.url.endsWith('/sdk/v1/events')).length;
    online.set(false);
    for (const key of keys(3)) client.get(key); // flushAt reached
    await vi.advanceTimersByTimeAsync(60_000); // and the interval passed
    expect(sends()).toBe(0);
    online.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sends()).toBe(1);
    expect(plane.events.map((event) => event.key)).toEqual(keys(3));

    plane.eventsStatus = 503;
    client.get('flag-9');
    await vi.advanceTimersByTimeAsync(5000); // a send that fails: a retry waits
    expect(sends()).toBe(2);
    online.set(false);
    plane.eventsStatus = 202;
    await vi.advanceTimersByTimeAsync(60_000); // the retry's time comes and goes
    expect(sends()).toBe(2);
    online.set(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sends()).toBe(3);
    expect(plane.events.map((event) => event.key)).toEqual([...keys(3), 'flag-9']);
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
