// A rolling restart, end to end: two CLI instances on one Redis and one Postgres behind a TCP
// proxy; streaming SDK clients post events; the instance they are on gets SIGTERM.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { wsTransport } from '../../../adapters/ws';
import { demoConfig } from '../../../reference-server/index';
import type { ServerConfig } from '../../../reference-server/index';
import { createClient } from '../../../src/client';
import { defaultScheduler } from '../../../src/shared/scheduler';
import type { FlagsClient } from '../../../src/client-types';
import { NetworkError, type FlagplaneError } from '../../../src/shared/errors';
import { fetchTransport } from '../../../src/http/fetch-transport';
import type { HttpTransport } from '../../../src/http/http-types';
import { bundleCli } from '../../helpers/cli-bundle';
import { describeWithBinaries } from '../../helpers/engine-binaries';
import { startServerProcess, type ServerProcess } from '../../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy';
import { waitFor } from '../../helpers/wait-for';
import { withTimeout } from '../helpers';
import { postgresNeed, redisNeed, usePostgresProcess, useRedisProcess } from './engines-fixture';

const root = resolve(import.meta.dirname, '../../..');
const CLIENTS = 6;
const ADMIN_TOKEN = 'rolling-restart-admin-token-0123456789';
const CLIENT_KEY = 'svc_sdk_client_rolling_restart_01';

/** The demo's production environment with this deployment's own admin token and client key (the demo's are refused on engines). */
function deploymentConfig(): ServerConfig {
  const production = demoConfig().environments.find(({ id }) => id === 'production')!;
  return { adminToken: ADMIN_TOKEN, environments: [{ ...production, keys: [{ key: CLIENT_KEY, kind: 'client' }] }] };
}

/** An event as the client sent it, comparable with a stored one (which gained `environmentId` and `receivedAt`). */
function canonical(event: Record<string, unknown>): string {
  const { environmentId: _environmentId, receivedAt: _receivedAt, ...sent } = event;
  return JSON.stringify(Object.fromEntries(Object.entries(sent).sort(([a], [b]) => a.localeCompare(b))));
}

/** What a client lived through: its connection changes (timed), its errors and the events the server answered 202. */
interface Witness {
  client: FlagsClient;
  connections: Array<{ connection: string; at: number }>;
  errors: FlagplaneError[];
  accepted: Array<Record<string, unknown>>;
}

/** The client's HTTP transport, keeping the events of every batch the server answered 202. */
function recordingTransport(accepted: Witness['accepted']): HttpTransport {
  return async (request) => {
    const result = await fetchTransport(request);
    if (request.method === 'POST' && request.url.endsWith('/sdk/v1/events') && result.kind === 'response' && result.status === 202) {
      accepted.push(...(JSON.parse(request.body!) as { events: Array<Record<string, unknown>> }).events);
    }
    return result;
  };
}

describeWithBinaries('a rolling restart of two instances on Redis and Postgres', [redisNeed, postgresNeed], () => {
  const redis = useRedisProcess();
  const postgres = usePostgresProcess();
  let dir: string;
  let cli: string;
  const instances: ServerProcess[] = [];
  const witnesses: Witness[] = [];
  let proxy: TcpProxy | undefined;

  beforeAll(async () => {
    // Inside the repository (git-ignored), so that the bundle resolves ws, ioredis and pg from node_modules.
    mkdirSync(join(root, 'test/apps/.tmp'), { recursive: true });
    dir = mkdtempSync(join(root, 'test/apps/.tmp', 'rolling-restart-'));
    cli = join(dir, 'cli.mjs');
    await bundleCli(root, cli);
  });
  afterEach(async () => {
    await Promise.all(witnesses.splice(0).map((witness) => witness.client.close()));
    await proxy?.close();
    await Promise.all(instances.splice(0).map((instance) => instance.kill()));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** A streaming client whose random number (the jitter of its reconnects) is always `random`. */
  function streamingClient(url: string, random: number): Witness {
    const witness: Witness = { client: undefined as unknown as FlagsClient, connections: [], errors: [], accepted: [] };
    witness.client = createClient({
      sdkKey: CLIENT_KEY,
      baseUrl: url,
      streamUrl: url,
      streamTransport: wsTransport,
      transport: recordingTransport(witness.accepted),
      pollInterval: 600_000,
      remoteTraits: false,
      flushInterval: 20,
      scheduler: { ...defaultScheduler, random: () => random },
      onError: (error) => witness.errors.push(error),
    });
    witness.client.subscribe(({ status }) => {
      if (status.connection !== witness.connections.at(-1)?.connection) witness.connections.push({ connection: status.connection, at: performance.now() });
    });
    witnesses.push(witness);
    return witness;
  }

  it('loses no accepted event, and every client is back on the survivor within 2 s and hears its next publish', async () => {
    const database = await postgres.createDatabase();
    writeFileSync(join(dir, 'config.json'), JSON.stringify(deploymentConfig()));
    const args = ['--config', join(dir, 'config.json'), '--redis', redis.url, '--postgres', database];
    const a = await startServerProcess(cli, args, dir);
    instances.push(a);
    const b = await startServerProcess(cli, args, dir);
    instances.push(b);
    proxy = await startTcpProxy([a, b].map(({ port }) => ({ host: '127.0.0.1', port })));

    // Spread as Math.random would: 0, 1/6 … 5/6 of the going-away second.
    const clients = Array.from({ length: CLIENTS }, (_, i) => streamingClient(proxy!.url, i / CLIENTS));
    await waitFor(() => clients.every(({ client }) => client.getStatus().connection === 'streaming' && client.getStatus().version !== null), 10_000, 'every client streaming');
    // The proxy takes the first backend that accepts: every connection so far went to A.
    expect(proxy.forwarded[1]).toBe(0);

    // Each client identifies a new user and reads a flag every 10 ms: identify events go to the
    // identify queue, production evaluations to analytics, both in Postgres.
    let posting = true;
    const users: string[] = [];
    const loops = clients.map(async ({ client }, i) => {
      while (posting) {
        users.push(`client-${i}-user-${users.length}`);
        void client.identify(users.at(-1)!, { plan: 'pro' });
        client.get('new-checkout', false);
        await new Promise((resolveTick) => setTimeout(resolveTick, 10));
      }
    });
    await waitFor(() => clients.every(({ accepted }) => accepted.length > 0), 5000, 'events accepted from every client');

    const stopped = performance.now();
    a.proc.kill('SIGTERM');
    await waitFor(() => clients.every(({ connections }) => connections.some(({ connection, at }) => connection === 'reconnecting' && at >= stopped)), 2000, "every client's stream closed");
    await waitFor(
      () => clients.every(({ client, connections }) => client.getStatus().connection === 'streaming' && connections.at(-1)!.at >= stopped),
      3000,
      'every client streaming again',
    );
    const gaps = clients.map(({ connections }) => {
      const closed = connections.find(({ connection, at }) => connection === 'reconnecting' && at >= stopped)!;
      const back = connections.find(({ connection, at }) => connection === 'streaming' && at > closed.at)!;
      expect(back.at - closed.at).toBeLessThan(2000);
      expect(back.at - stopped).toBeLessThan(2000);
      return Math.round(back.at - closed.at);
    });
    // The client with random 0 reconnects at once: a backoff would have made it wait 1000 ms.
    expect(gaps[0]).toBeLessThan(1000);
    expect(await withTimeout(a.exited, 10_000, 'A exits')).toEqual({ code: 0, signal: null });
    expect(a.output.stdout).toMatch(new RegExp(`\\nclosed ${CLIENTS} streams with 1001 \\(going away\\); \\d+ requests? in flight finished, 0 cut; engines closed; \\d+ ms\\n$`));
    expect(a.output.stderr).toBe('');

    // On the survivor: its listing counts every client's stream, and its publish reaches each.
    const listing = (await (await fetch(`${b.baseUrl}/admin/v1/environments`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as {
      environments: Array<{ id: string; streams: number }>;
    };
    expect(listing.environments.find(({ id }) => id === 'production')?.streams).toBe(CLIENTS);
    const published = await fetch(`${b.baseUrl}/admin/v1/environments/production/flags/after-restart`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ on: true, clientSide: true, variations: ['before', 'after'], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 's' }),
    });
    expect(published.status).toBe(200);
    const { version } = (await published.json()) as { version: number };
    await waitFor(() => clients.every(({ client }) => client.getStatus().version === version), 2000, 'every client at the published version');
    for (const { client } of clients) expect(client.get('after-restart', 'before')).toBe('after');

    posting = false;
    await Promise.all(loops);
    await Promise.all(clients.map(({ client }) => client.close()));
    witnesses.splice(0);
    // The stream's restart reports nothing. An events POST sent on a keep-alive connection just
    // as A closed it fails (Node's fetch, unlike browsers, does not resend it): the client
    // reports it and sends the batch again, to B; close() flushed the last of them.
    const errors = clients.flatMap((witness) => witness.errors);
    expect(errors.filter((error) => !(error instanceof NetworkError && error.route === 'POST /sdk/v1/events'))).toEqual([]);

    b.proc.kill('SIGTERM');
    expect(await withTimeout(b.exited, 10_000, 'B exits')).toEqual({ code: 0, signal: null });

    // Every event answered 202 is in Postgres, read directly now that both instances are gone.
    const accepted = clients.flatMap(({ accepted }) => accepted);
    const identified = accepted.filter((event) => event.type === 'identify').map((event) => event.userId as string);
    // Nothing was lost on the way either: every identify() made was accepted at last.
    expect(new Set(identified)).toEqual(new Set(users));
    const evaluations = accepted.filter((event) => event.type === 'evaluation').map(canonical);
    expect(identified.length).toBeGreaterThan(CLIENTS);
    expect(evaluations.length).toBeGreaterThan(0);
    const db = new pg.Client({ connectionString: database });
    await db.connect();
    try {
      const queued = new Set((await db.query('SELECT user_id FROM flagplane_identify_queue')).rows.map((row) => row.user_id as string));
      expect(identified.filter((userId) => !queued.has(userId))).toEqual([]);
      const stored = new Map<string, number>();
      for (const row of (await db.query('SELECT event FROM flagplane_analytics_events')).rows) {
        const key = canonical(row.event as Record<string, unknown>);
        stored.set(key, (stored.get(key) ?? 0) + 1);
      }
      const missing = evaluations.filter((key) => {
        const left = stored.get(key) ?? 0;
        stored.set(key, left - 1);
        return left <= 0;
      });
      expect(missing).toEqual([]);
    } finally {
      await db.end();
    }
    console.info(
      `rolling restart: ${identified.length} identify and ${evaluations.length} evaluation events accepted, all in Postgres; ` +
        `${errors.length} events POSTs failed on a connection A closed, and were sent again; ` +
        `streams back on B after ${gaps.join(', ')} ms (random 0, 1/6 … 5/6)`,
    );
  }, 60_000);
});
