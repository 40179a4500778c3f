import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import invalidBatches from '../../fixtures/invalid-batches.json';
import type { ReferenceServer } from '../../../reference-server/index';
import { call, DEMO, errorOf, NOW, useServers } from '../helpers';

const servers = useServers();

interface InvalidBatchCase {
  name: string;
  body?: unknown;
  rawBody?: string;
  contentType?: string | null;
  status: number;
  code: string;
  path?: string;
}

const evaluation = (extra: Record<string, unknown> = {}) => ({
  type: 'evaluation',
  key: 'new-checkout',
  reason: 'TARGETING_MATCH',
  value: true,
  userId: 'user-1',
  ...extra,
});

function postEvents(server: ReferenceServer, body: unknown, key: string = DEMO.prodClientKey): Promise<Response> {
  return call(server, '/sdk/v1/events', { key, method: 'POST', body });
}

function sendCase(server: ReferenceServer, testCase: InvalidBatchCase): Promise<Response> {
  const headers: Record<string, string> = {};
  if (testCase.contentType !== null) headers['content-type'] = testCase.contentType ?? 'application/json';
  const rawBody = testCase.rawBody ?? JSON.stringify(testCase.body);
  return call(server, '/sdk/v1/events', { method: 'POST', rawBody, headers });
}

function storedCounts(server: ReferenceServer) {
  const { identifyQueue, analytics, diagnostics } = server.stores;
  return [identifyQueue.rows.length, analytics.events.length, diagnostics.events.length];
}

describe('POST /sdk/v1/events: routing', () => {
  const mixedBatch = () => ({
    sentAt: NOW(),
    events: [
      evaluation(),
      { type: 'unregistered_flag', key: 'no-such-flag' },
      { type: 'error', message: 'snapshot fetch failed: 503' },
      { type: 'version_skew', previousVersion: 4, currentVersion: 2 },
      { type: 'identify', userId: 'user-9', traits: { plan: 'team', seats: 12 } },
      evaluation({ key: 'checkout-button-color', value: 'green', reason: 'SPLIT' }),
    ],
  });

  it('routes identify to the queue, production evaluations to analytics, the rest to diagnostics', async () => {
    const server = await servers.start();
    const before = Date.now();
    const response = await postEvents(server, mixedBatch());
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 6 });

    const [row] = server.stores.identifyQueue.rows;
    expect(server.stores.identifyQueue.rows).toHaveLength(1);
    expect(row).toEqual({
      id: expect.any(Number),
      environmentId: 'production',
      userId: 'user-9',
      traits: { plan: 'team', seats: 12 },
      receivedAt: expect.any(String),
    });
    expect(Date.parse(row!.receivedAt)).toBeGreaterThanOrEqual(before - 1000);

    expect(server.stores.analytics.events.map((e) => e.key)).toEqual(['new-checkout', 'checkout-button-color']);
    expect(server.stores.analytics.events[0]).toMatchObject({ ...evaluation(), environmentId: 'production' });
    expect(server.stores.diagnostics.events.map((e) => e.type)).toEqual(['unregistered_flag', 'error', 'version_skew']);
    expect(server.stores.diagnostics.events.every((e) => e.environmentId === 'production' && typeof e.receivedAt === 'string')).toBe(true);
  });

  it('never sends staging evaluations to analytics', async () => {
    const server = await servers.start();
    const response = await postEvents(server, mixedBatch(), DEMO.stagingServerKey);
    expect(response.status).toBe(202);
    expect(server.stores.analytics.events).toHaveLength(0);
    expect(server.stores.diagnostics.events.map((e) => e.type)).toEqual([
      'evaluation',
      'unregistered_flag',
      'error',
      'version_skew',
      'evaluation',
    ]);
    expect(server.stores.diagnostics.events.every((e) => e.environmentId === 'staging')).toBe(true);
    expect(server.stores.identifyQueue.rows.map((r) => r.environmentId)).toEqual(['staging']);
  });

  it('gives identify rows increasing ids', async () => {
    const server = await servers.start();
    const identify = (userId: string) => ({ type: 'identify', userId, traits: {} });
    await postEvents(server, { sentAt: NOW(), events: [identify('a'), identify('b')] });
    await postEvents(server, { sentAt: NOW(), events: [identify('c')] });
    const ids = server.stores.identifyQueue.rows.map((r) => r.id);
    expect(ids).toHaveLength(3);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });

  it('accepts charset parameters, empty batches, evaluations without userId, and limits at their edge', async () => {
    const server = await servers.start();
    const body = JSON.stringify({ sentAt: '2025-06-01T12:00:00Z', events: [evaluation({ userId: undefined, value: { nested: [1, null] } })] });
    const withCharset = await call(server, '/sdk/v1/events', {
      method: 'POST',
      rawBody: body,
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect(withCharset.status).toBe(202);
    expect(server.stores.analytics.events[0]).not.toHaveProperty('userId');

    expect(await (await postEvents(server, { sentAt: NOW(), events: [] })).json()).toEqual({ accepted: 0 });

    const edge = [
      evaluation({ key: 'k'.repeat(256), reason: 'R'.repeat(64), userId: 'u'.repeat(256) }),
      { type: 'error', message: 'm'.repeat(2048) },
      { type: 'identify', userId: 'u', traits: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`t${i}`, i])) },
    ];
    expect((await postEvents(server, { sentAt: NOW(), events: edge })).status).toBe(202);

    const fiveHundred = Array.from({ length: 500 }, () => ({ type: 'unregistered_flag', key: 'x' }));
    expect(await (await postEvents(server, { sentAt: NOW(), events: fiveHundred })).json()).toEqual({ accepted: 500 });
  });

  it('keeps members it does not know', async () => {
    const server = await servers.start();
    await postEvents(server, { sentAt: NOW(), sdk: 'flagplane-js', events: [{ type: 'error', message: 'boom', code: 'E_FETCH' }] });
    expect(server.stores.diagnostics.events[0]).toMatchObject({ type: 'error', message: 'boom', code: 'E_FETCH' });
  });
});

describe('POST /sdk/v1/events: bad input', () => {
  it.each(invalidBatches as InvalidBatchCase[])('$name → $status $code $path', async (testCase) => {
    const server = await servers.start();
    const response = await sendCase(server, testCase);
    expect(response.status).toBe(testCase.status);
    const error = await errorOf(response);
    expect(error.code).toBe(testCase.code);
    expect(error.path).toBe(testCase.path);
    if (testCase.path) expect(error.message).toContain(testCase.path);
    expect(storedCounts(server)).toEqual([0, 0, 0]);
  });

  it.each([
    ['2049-character message', { type: 'error', message: 'm'.repeat(2049) }, 'events[0].message'],
    ['257-character userId', { type: 'identify', userId: 'u'.repeat(257), traits: {} }, 'events[0].userId'],
  ])('rejects a %s', async (_name, event, path) => {
    const server = await servers.start();
    const response = await postEvents(server, { sentAt: NOW(), events: [event] });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path });
  });

  it('rejects a batch of 501 events', async () => {
    const server = await servers.start();
    const events = Array.from({ length: 501 }, () => ({ type: 'unregistered_flag', key: 'x' }));
    const response = await postEvents(server, { sentAt: NOW(), events });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'events' });
  });

  it('answers 413 for a body over 256 KiB and accepts one just under it', async () => {
    const server = await servers.start();
    const errors = (count: number) => Array.from({ length: count }, () => ({ type: 'error', message: 'm'.repeat(2000) }));
    const under = JSON.stringify({ sentAt: NOW(), events: errors(120) });
    const over = JSON.stringify({ sentAt: NOW(), events: errors(135) });
    expect(Buffer.byteLength(under)).toBeLessThan(262_144);
    expect(Buffer.byteLength(over)).toBeGreaterThan(262_144);
    expect((await postEvents(server, JSON.parse(under))).status).toBe(202);
    const response = await postEvents(server, JSON.parse(over));
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe('payload_too_large');
    expect(server.stores.diagnostics.events).toHaveLength(120);
  });

  it('answers 413 for a chunked body without Content-Length that grows past the limit', async () => {
    const server = await servers.start();
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.baseUrl}/sdk/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO.prodClientKey}`, 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      for (let i = 0; i < 40; i++) req.write('x'.repeat(8192));
      req.end();
    });
    expect(status).toBe(413);
    expect(JSON.parse(body).error.code).toBe('payload_too_large');
  });

  it('still accepts and routes a valid batch after many malformed requests', async () => {
    const server = await servers.start();
    for (const testCase of invalidBatches as InvalidBatchCase[]) {
      const response = await sendCase(server, testCase);
      expect(response.status).toBe(testCase.status);
      await response.arrayBuffer();
    }
    const oversized = await call(server, '/sdk/v1/events', {
      method: 'POST',
      rawBody: 'x'.repeat(300_000),
      headers: { 'content-type': 'application/json' },
    });
    expect(oversized.status).toBe(413);
    expect(storedCounts(server)).toEqual([0, 0, 0]);

    const response = await postEvents(server, {
      sentAt: NOW(),
      events: [evaluation(), { type: 'identify', userId: 'user-2', traits: { plan: 'pro' } }, { type: 'error', message: 'x' }],
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 3 });
    expect(storedCounts(server)).toEqual([1, 1, 1]);
  });
});

describe('event batches against the type table', () => {
  // Names inherited from Object.prototype must not find a "rule set" (a function or the prototype)
  // in the type table: protocol.md §4 says unknown types are rejected with 400 invalid_batch
  // naming events[i].type, and nothing is stored in diagnostics.
  for (const type of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    it(`rejects an event of type "${type}" with 400 naming events[0].type`, async () => {
      const server = await servers.start();
      const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events: [{ type }] } });
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'events[0].type' });
      expect(server.stores.diagnostics.events).toHaveLength(0);
    });
  }

  it('rejects the first bad event of a full batch of 500 by its index, storing nothing', async () => {
    const server = await servers.start();
    const events: unknown[] = Array.from({ length: 500 }, () => ({ type: 'unregistered_flag', key: 'x' }));
    events[499] = { type: 'version_skew', previousVersion: 1, currentVersion: 2 ** 53 };
    const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt: NOW(), events } });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'events[499].currentVersion' });
    expect(server.stores.diagnostics.events).toHaveLength(0);
  });

  it.each([
    ['a 65-character sentAt', `2025-06-01T00:00:00.${'1'.repeat(44)}Z`, 400],
    ['a 64-character sentAt', `2025-06-01T00:00:00.${'1'.repeat(43)}Z`, 202],
    ['a sentAt with an offset', '2025-06-01T00:00:00+00:00', 400],
    ['a sentAt on 29 February of a non-leap year', '2025-02-29T00:00:00Z', 400],
  ])('answers %s with %i', async (_name, sentAt, status) => {
    const server = await servers.start();
    const response = await call(server, '/sdk/v1/events', { method: 'POST', body: { sentAt, events: [] } });
    expect(response.status).toBe(status);
    if (status === 400) expect(await errorOf(response)).toMatchObject({ code: 'invalid_batch', path: 'sentAt' });
  });
});
