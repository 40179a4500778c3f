import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../reference-server/http/rate-limit';
import { RouteError } from '../../../reference-server/http/responses';
import type { HandlerRequest } from '../../../reference-server/http/router';
import { createSdkRoutes } from '../../../reference-server/routes/sdk';
import { createEventLog } from '../../../reference-server/stores/event-log';
import { createIdentifyLog } from '../../../reference-server/stores/identify-log';
import { createMemoryAnalyticsStore, createMemoryIdentifyQueueStore } from '../../../reference-server/stores/memory-event-stores';
import { DEMO, useServers } from '../helpers';

const servers = useServers();

/** A clock a test moves by hand. */
function manualClock() {
  let now = 0;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('the rate limiter’s wait', () => {
  it('is the missing part of a token over the rate: 250 ms at 4/s once the burst of 8 is spent, 150 ms 100 ms later', () => {
    const clock = manualClock();
    const limiter = createRateLimiter(4, clock.now);
    expect(Array.from({ length: 8 }, () => limiter.take('k'))).toEqual(Array(8).fill(0));
    expect(limiter.take('k')).toBe(250);
    // 100 ms refill 0.4 of a token: 0.6 is missing, 0.6 ÷ 4 per second = 150 ms.
    clock.advance(100);
    expect(limiter.take('k')).toBe(150);
    clock.advance(150);
    expect(limiter.take('k')).toBe(0);
  });

  it('is 0 always at a rate of 0 (no limit)', () => {
    const limiter = createRateLimiter(0);
    expect(Array.from({ length: 100 }, () => limiter.take('k'))).toEqual(Array(100).fill(0));
    expect(limiter.size).toBe(0);
  });

  it('drops buckets that have refilled once it holds 1024, keeping those still spending', () => {
    const clock = manualClock();
    const limiter = createRateLimiter(4, clock.now);
    for (let i = 0; i < 8; i++) limiter.take('busy');
    for (let i = 0; i < 1023; i++) limiter.take(`address-${i}`);
    expect(limiter.size).toBe(1024);
    clock.advance(250);
    // One token refilled: `busy` has one, every other bucket is full again (7 + 1).
    expect(limiter.take('newcomer')).toBe(0);
    expect(limiter.size).toBe(2);
    expect([limiter.take('busy'), limiter.take('busy')]).toEqual([0, 250]);
  });

  it('becomes Retry-After in whole seconds, rounded up: 1 at 4 requests a second', async () => {
    const server = await servers.start();
    const clock = manualClock();
    const events = { identifyQueue: createMemoryIdentifyQueueStore(createIdentifyLog()), analytics: createMemoryAnalyticsStore(createEventLog()) };
    const routes = createSdkRoutes(server.stores, events, { perKey: createRateLimiter(4, clock.now) });
    const getSnapshot = routes.find((route) => route.pattern === '/sdk/v1/snapshot')!.methods.GET!;
    const request: HandlerRequest = {
      method: 'GET',
      path: '/sdk/v1/snapshot',
      params: {},
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${DEMO.prodServerKey}` },
      remoteAddress: '127.0.0.1',
      readBody: () => Promise.reject(new Error('a GET has no body')),
    };
    for (let i = 0; i < 8; i++) expect((await getSnapshot(request)).status).toBe(200);
    clock.advance(100);
    const refused = await Promise.resolve()
      .then(() => getSnapshot(request))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RouteError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', headers: { 'Retry-After': '1' } });
  });
});
