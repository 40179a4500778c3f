import { describe, expect, it, vi } from 'vitest';
import { HttpError, SchemaError, NetworkError } from '../../src/shared/errors';
import { jsonResponse, response, snapshotServer } from '../helpers/fake-transport';
import { BASE_URL, CLIENT_KEY, harness, servedHarness } from '../helpers/client-harness';
import { snapshotOf } from '../helpers/snapshots';
import type { HttpResult, HttpTransport } from '../../src/http/http-types';
import { useFakeTimersInEachTest } from '../helpers/fake-timers';

useFakeTimersInEachTest();

describe('the fetch procedure (protocol.md §8)', () => {
  it('GETs the snapshot with the bearer key, then polls with If-None-Match and keeps the snapshot on 304', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { banner: 'hello' }), { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]).toMatchObject({ method: 'GET', url: `${BASE_URL}/sdk/v1/snapshot` });
    expect(requests[0]!.headers).toEqual({ authorization: `Bearer ${CLIENT_KEY}` });
    expect(client.get('banner')).toBe('hello');
    const status = client.getStatus();

    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.headers['if-none-match']).toBe('"snapshot-1"');
    expect(client.get('banner')).toBe('hello');
    expect(client.getStatus()).toBe(status);
    await client.close();
  });

  it('picks up a published snapshot on the following poll', async () => {
    const { client, server } = servedHarness(snapshotOf(1, { banner: 'hello' }), { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    server.publish(snapshotOf(2, { banner: 'bonjour' }));
    await vi.advanceTimersByTimeAsync(999);
    expect(client.get('banner')).toBe('hello');
    await vi.advanceTimersByTimeAsync(1);
    expect(client.get('banner')).toBe('bonjour');
    expect(client.getStatus().version).toBe(2);
    await client.close();
  });

  it('pollInterval 0 fetches once', async () => {
    const { client, requests } = servedHarness(snapshotOf(1, { a: 1 }), { pollInterval: 0 });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(requests).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    await client.close();
  });

  it('pollInterval 0 still retries a failed first fetch until one succeeds', async () => {
    let calls = 0;
    const { client, requests } = harness(() => (++calls < 3 ? response(500) : jsonResponse(200, snapshotOf(1, { a: 1 }))), {
      pollInterval: 0,
    });
    await vi.advanceTimersByTimeAsync(1000 + 2000);
    expect(requests).toHaveLength(3);
    expect(client.get('a')).toBe(1);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(requests).toHaveLength(3);
    await client.close();
  });

  it('failures back off and never stop the client; a success resets the sequence', async () => {
    let mode: 'fail' | 'ok' = 'fail';
    const server = snapshotServer(snapshotOf(1, { a: 1 }));
    const times: number[] = [];
    const { client, errors } = harness(
      (request) => {
        times.push(Date.now());
        return mode === 'fail' ? response(502, 'bad gateway') : server.handler(request);
      },
      { pollInterval: 30_000 },
    );
    const start = Date.now();
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000 + 8000);
    expect(times.map((t) => t - start)).toEqual([0, 1000, 3000, 7000, 15_000]);
    expect(errors).toHaveLength(5);
    expect(errors[0]).toBeInstanceOf(HttpError);
    expect((errors[0] as HttpError).status).toBe(502);
    mode = 'ok';
    await vi.advanceTimersByTimeAsync(16_000);
    expect(client.get('a')).toBe(1);
    mode = 'fail';
    times.length = 0;
    await vi.advanceTimersByTimeAsync(30_000 + 1000);
    expect(times.map((t) => t - start)).toEqual([61_000, 62_000]);
    await client.close();
  });

  it('honours Retry-After on 503', async () => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': '120' }));
    await vi.advanceTimersByTimeAsync(119_999);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('rejects a newer schema, keeps the last good snapshot and reports a SchemaError', async () => {
    const server = snapshotServer(snapshotOf(1, { a: 'good' }));
    const { client, errors } = harness((request) => server.handler(request), { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    server.publish({ ...snapshotOf(2, { a: 'from the future' }), schemaVersion: 2 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.get('a')).toBe('good');
    expect(errors[0]).toBeInstanceOf(SchemaError);
    expect(errors[0]!.message).toMatch(/has schemaVersion 2; this client supports 1/);
    expect(client.getStatus().error).toBe(errors[0]);
    await client.close();
  });

  it.each([
    ['not JSON', '<html>oops</html>'],
    ['not an object', '[1,2]'],
    ['no version', JSON.stringify({ schemaVersion: 1, environmentId: 'p', flags: {} })],
    ['flags not an object', JSON.stringify({ schemaVersion: 1, version: 3, environmentId: 'p', flags: [] })],
  ])('treats a body that is %s like a bad schema', async (_name, body) => {
    const { client, errors } = harness(() => response(200, body), { bootstrap: snapshotOf(1, { a: 'boot' }) });
    await vi.advanceTimersByTimeAsync(0);
    expect(errors[0]).toBeInstanceOf(SchemaError);
    expect(client.get('a')).toBe('boot');
    await client.close();
  });

  it('a lower version is ignored and a gap is taken without fetching intermediate versions', async () => {
    const bodies = [snapshotOf(5, { a: 5 }), snapshotOf(4, { a: 4 }), snapshotOf(9, { a: 9 })];
    const { client, requests } = harness(() => jsonResponse(200, bodies.shift()), { pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.get('a')).toBe(5);
    await vi.advanceTimersByTimeAsync(1000);
    expect(client.get('a')).toBe(9);
    expect(requests.every((request) => !request.url.includes('minVersion') && !('flagplane-min-version' in request.headers))).toBe(true);
    expect(requests).toHaveLength(3);
    await client.close();
  });

  it('refresh() fetches now and resolves when that fetch is done', async () => {
    const { client, requests, server } = servedHarness(snapshotOf(1, { a: 1 }));
    await vi.advanceTimersByTimeAsync(0);
    server.publish(snapshotOf(2, { a: 2 }));
    await client.refresh();
    expect(requests).toHaveLength(2);
    expect(client.get('a')).toBe(2);
    await client.close();
  });

  it('a newer fetch aborts the older one without reporting the abort', async () => {
    let call = 0;
    const { client, requests, errors } = harness(() => (++call === 1 ? 'hang' : jsonResponse(200, snapshotOf(1, { a: 1 }))));
    await vi.advanceTimersByTimeAsync(0);
    await client.refresh();
    expect(requests[0]!.signal.aborted).toBe(true);
    expect(errors).toEqual([]);
    expect(client.get('a')).toBe(1);
    await client.close();
  });
});

describe('transports that break the contract', () => {
  it('a transport that throws synchronously is a NetworkError, retried with backoff', async () => {
    let calls = 0;
    const transport: HttpTransport = () => {
      calls++;
      throw new Error('sync boom');
    };
    const { client, errors } = harness(() => 'hang', { transport });
    await vi.advanceTimersByTimeAsync(0);
    expect(errors[0]).toBeInstanceOf(NetworkError);
    expect((errors[0] as NetworkError & { cause: Error }).cause.message).toBe('sync boom');
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    await client.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a transport that returns a plain value rather than a promise works', async () => {
    const transport = (() => jsonResponse(200, snapshotOf(1, { a: 'plain' }))) as unknown as HttpTransport;
    const { client } = harness(() => 'hang', { transport });
    await expect(client.ready()).resolves.toEqual({ status: 'ready', source: 'network' });
    expect(client.get('a')).toBe('plain');
    await client.close();
  });

  it('a transport that answers after its abort: the late answer is ignored and not reported', async () => {
    const answers: Array<(reply: HttpResult) => void> = [];
    const transport: HttpTransport = () => new Promise<HttpResult>((resolve) => answers.push(resolve));
    const { client, errors } = harness(() => 'hang', { transport, requestTimeout: 0 });
    await vi.advanceTimersByTimeAsync(0);
    const refreshed = client.refresh();
    answers[1]!(jsonResponse(200, snapshotOf(2, { a: 'second' })));
    await refreshed;
    answers[0]!(jsonResponse(200, snapshotOf(9, { a: 'first, aborted' })));
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe('second');
    expect(errors).toEqual([]);
    await client.close();
  });

  it('a transport that resolves with undefined: refresh() still resolves, the failure is reported and polling goes on', async () => {
    let calls = 0;
    const transport = (async () => {
      calls++;
      // A custom transport with a missing `return` in one branch.
      return calls === 2 ? undefined : jsonResponse(200, snapshotOf(calls, { a: calls }));
    }) as unknown as HttpTransport;
    const { client, errors } = harness(() => 'hang', { transport, pollInterval: 1000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(client.get('a')).toBe(1);
    // Before the fix: refresh() rejects with "Cannot read properties of undefined (reading 'kind')", nothing
    // is reported, and the machine stays `in-flight` forever: no poll, no retry.
    const outcome = await client.refresh().then(
      () => 'resolved',
      (error: unknown) => `rejected: ${(error as Error).message}`,
    );
    await vi.advanceTimersByTimeAsync(5000);
    const callsAfter = calls;
    await client.close();
    expect(outcome).toBe('resolved');
    expect(errors).toHaveLength(1);
    expect(callsAfter).toBeGreaterThan(2);
  });
});

describe('Retry-After with odd values', () => {
  // Jitter is 0 in the harness: the first retry is due after exactly 1000 ms.
  it.each([
    ['negative', '-30', 1000],
    ['zero', '0', 1000],
    ['shorter than the backoff', '0.5', 1000],
    ['fractional seconds', '2.5', 2500],
    ['not a number nor a date', 'soon', 1000],
    ['an HTTP date in the past', 'Wed, 21 Oct 2015 07:28:00 GMT', 1000],
  ])('%s (%s): retry after %i ms', async (_name, value, delay) => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': value }));
    await vi.advanceTimersByTimeAsync(delay - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('an HTTP date in the future is honoured on 429', async () => {
    const at = new Date(Date.now() + 90_000).toUTCString();
    const { client, requests } = harness(() => response(429, '', { 'retry-after': at }));
    await vi.advanceTimersByTimeAsync(80_000);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('Retry-After on a 500 is ignored', async () => {
    const { client, requests } = harness(() => response(500, '', { 'retry-after': '3600' }));
    await vi.advanceTimersByTimeAsync(1000);
    expect(requests).toHaveLength(2);
    await client.close();
  });

  it('a huge Retry-After (over the 24.8-day timer limit) does not turn into an immediate retry loop', async () => {
    const { client, requests } = harness(() => response(503, '', { 'retry-after': String(40 * 24 * 3600) }));
    await vi.advanceTimersByTimeAsync(100);
    const made = requests.length;
    await client.close();
    // Platform timers (Node, browsers, fake timers alike) fire after 1 ms above 2^31-1 ms:
    // today about one request per millisecond.
    expect(made).toBe(1);
  });
});
