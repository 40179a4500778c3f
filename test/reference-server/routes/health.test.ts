// /healthz and /readyz over real HTTP: on a whole server (memory), and on the router alone with
// probes that fail, hang, or an instance that is closing.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../../reference-server/http/router';
import type { HealthDeps, Lifecycle } from '../../../reference-server/routes/health';
import { createHealthRoutes } from '../../../reference-server/routes/health';
import { DEMO, errorOf, useServers } from '../helpers';

const servers = useServers();

describe('on a server in memory', () => {
  it('GET /healthz answers 200 {"status":"ok"} without a token, not cached, without CORS headers', async () => {
    const server = await servers.start();
    const response = await fetch(`${server.baseUrl}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('GET /readyz answers 200 with no engine to probe', async () => {
    const server = await servers.start();
    const response = await fetch(`${server.baseUrl}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', engines: {} });
  });

  it('answers HEAD with the status and no body, and refuses other methods with 405', async () => {
    const server = await servers.start();
    for (const path of ['/healthz', '/readyz']) {
      const head = await fetch(`${server.baseUrl}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      const post = await fetch(`${server.baseUrl}${path}`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      expect((await errorOf(post)).code).toBe('method_not_allowed');
    }
  });

  it('is not rate limited and ignores a bad token: a load balancer probes freely', async () => {
    const server = await servers.start({ limits: { requestsPerSecondPerKey: 1 } });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${server.baseUrl}${i % 2 ? '/healthz' : '/readyz'}`, { headers: { authorization: 'Bearer wrong' } })),
    );
    expect(answers.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // The SDK routes of the same server are limited: the limit is on.
    const sdk = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${server.baseUrl}/sdk/v1/snapshot`, { headers: { authorization: `Bearer ${DEMO.prodServerKey}` } })),
    );
    expect(sdk.map((response) => response.status)).toContain(429);
  });
});

describe('on the router with probes', () => {
  const started: Server[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function serve(deps: HealthDeps): Promise<string> {
    const server = createServer(createRequestListener(createHealthRoutes(deps), () => undefined));
    started.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  it('answers 200 with each engine up and the time it took', async () => {
    const base = await serve({ probes: [{ engine: 'redis', ping: () => Promise.resolve() }, { engine: 'postgres', ping: () => Promise.resolve() }], timeoutMs: 1000, lifecycle: () => 'serving' });
    const response = await fetch(`${base}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; engines: Record<string, { status: string; ms: number }> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.engines)).toEqual(['redis', 'postgres']);
    expect(Object.values(body.engines).map((engine) => engine.status)).toEqual(['up', 'up']);
  });

  it('answers 503 unavailable naming an engine that refused and one that hangs, by the timeout', async () => {
    const base = await serve({
      probes: [
        { engine: 'redis', ping: () => new Promise<void>(() => undefined) },
        { engine: 'postgres', ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) },
      ],
      timeoutMs: 300,
      lifecycle: () => 'serving',
    });
    const started = performance.now();
    const response = await fetch(`${base}/readyz`);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(503);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await errorOf(response)).toEqual({
      code: 'unavailable',
      message: 'not ready: redis timed out (no answer within 300 ms); postgres refused (connect ECONNREFUSED 127.0.0.1:5432)',
    });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1300);
    // The process still answers.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('answers 503 once the instance is closing, also to a probe in flight when close() began', async () => {
    let lifecycle: Lifecycle = 'serving';
    let answer: () => void = () => undefined;
    const base = await serve({ probes: [{ engine: 'redis', ping: () => new Promise<void>((resolve) => (answer = resolve)) }], timeoutMs: 5000, lifecycle: () => lifecycle });
    const inFlight = fetch(`${base}/readyz`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    lifecycle = 'closing';
    answer();
    const response = await inFlight;
    expect(response.status).toBe(503);
    expect(await errorOf(response)).toEqual({ code: 'unavailable', message: 'not ready: the instance is shutting down' });
    const later = await fetch(`${base}/readyz`, { method: 'HEAD' });
    expect(later.status).toBe(503);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});
