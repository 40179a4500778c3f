/**
 * The React Native example (docs/examples/react-native/flags.ts), as Metro bundles and lowers
 * it, in the `hermes` binary against the reference server: real HTTP and a real WebSocket,
 * made by Node as React Native's native side (hermes-bridge.ts explains the bridge).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import type { EvaluationContext } from '../../src/evaluation/evaluation-types';
import { startReferenceServer, type ReferenceServer } from '../../reference-server/index';
import { DEMO } from '../helpers/reference-server';
import { builtPackage, type BuiltPackage } from './built-package';
import { bundleApp, hermesAvailability, hermesCopy } from './hermes-bundle';
import { startHermes, type HermesSession, type Message } from './hermes-bridge';

const availability = hermesAvailability();
if (availability.kind === 'skip') console.warn(availability.message);

/** Matches demo.json's `new-mobile-apps` rule of search-page-size; checkout-button-color is a rollout for US. */
const CONTEXT = { userId: 'hermes-user-7', attributes: { platform: 'ios', appVersion: '5.1.0', country: 'US' } };

/** The reference server's admin API. */
const adminOf = (server: ReferenceServer) => (path: string, init: RequestInit = {}) =>
  fetch(`${server.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${DEMO.adminToken}`, 'content-type': 'application/json' } });

/** Polls `check` until it holds. */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000) {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the server');
  }
}

/** What a client in Node serves the same context: the same bucketing, byte for byte. */
async function servedInNode(server: ReferenceServer, context: EvaluationContext) {
  const client = createClient({ sdkKey: DEMO.prodClientKey, baseUrl: server.baseUrl, context, events: false });
  await client.ready();
  const values = { 'new-checkout': client.get('new-checkout', false), 'checkout-button-color': client.get('checkout-button-color', 'blue') };
  await client.close();
  return values;
}

describe('the React Native example in the docs', () => {
  const example = readFileSync(fileURLToPath(new URL('../../docs/examples/react-native/flags.ts', import.meta.url)), 'utf8');
  it.each(['runtimes.md', 'adapters.md'])('docs/%s shows the file this suite runs, as it is', (doc) => {
    const text = readFileSync(fileURLToPath(new URL(`../../docs/${doc}`, import.meta.url)), 'utf8');
    expect(text).toContain(`\`\`\`ts\n${example}\`\`\``);
  });
});

describe('whether the Hermes suite runs', () => {
  it('is skipped when the binary is missing or does not start, and fails instead with CI=true', () => {
    expect(hermesAvailability({}, () => false).kind).toBe('skip');
    expect(hermesAvailability({}, () => true, () => false).kind).toBe('skip');
    expect(hermesAvailability({ CI: 'true' }, () => false)).toMatchObject({ kind: 'fail' });
    expect(hermesAvailability({ CI: 'true' }, () => true, () => false)).toMatchObject({ kind: 'fail' });
    expect(hermesAvailability({ CI: 'true' }, () => true, () => true)).toEqual({ kind: 'run' });
  });
});

/**
 * The package built, bundled and lowered once per file; per test a reference server and a
 * Hermes, both stopped after it even when it failed.
 */
function useHermesWorld() {
  let pkg: BuiltPackage | undefined;
  let binary: ReturnType<typeof hermesCopy> | undefined;
  let bundle = '';
  const world = { server: undefined as ReferenceServer | undefined, hermes: undefined as HermesSession | undefined };

  beforeAll(async () => {
    if (availability.kind === 'fail') throw new Error(availability.message);
    binary = hermesCopy();
    pkg = await builtPackage();
    bundle = await bundleApp(pkg.home);
  }, 60_000);
  afterAll(() => {
    pkg?.remove();
    binary?.remove();
  });
  afterEach(async () => {
    world.hermes?.kill();
    world.hermes = undefined;
    await world.server?.close();
    world.server = undefined;
  });

  /** A server, Hermes with the app loaded, and the app started with `context` (after `before`). */
  async function launch(context: EvaluationContext = CONTEXT, before = ''): Promise<{ session: HermesSession; ready: Message; server: ReferenceServer }> {
    const server = (world.server = await startReferenceServer({ port: 0 }));
    const session = (world.hermes = startHermes(binary!.path, bundle));
    await session.next((m) => m.t === 'loaded');
    const ready = session.next((m) => m.t === 'ready' || m.t === 'threw');
    session.run(`${before}__app.start(${JSON.stringify({ sdkKey: DEMO.prodClientKey, baseUrl: server.baseUrl })}, ${JSON.stringify(context)})`);
    return { session, ready: await ready, server };
  }
  return launch;
}

describe.skipIf(availability.kind === 'skip')('the React Native example in Hermes 0.12', () => {
  const launch = useHermesWorld();

  it('gets ready from the server and serves the targeted values, rollouts bucketed as in Node', async () => {
    const { ready, server } = await launch();
    expect(ready).toMatchObject({ t: 'ready', ready: { status: 'ready', source: 'network' } });
    expect(ready.values).toMatchObject({ 'search-page-size': 20, ...(await servedInNode(server, CONTEXT)) });
    const anonymous = await launch({});
    expect(anonymous.ready.values).toMatchObject({ 'search-page-size': 10 });
    expect(anonymous.session.messages.filter((m) => m.t === 'log')).toEqual([]);
  });

  it('without a TextEncoder, createClient throws the ConfigError naming it and arms nothing', async () => {
    const { session, ready } = await launch(CONTEXT, 'delete globalThis.TextEncoder; ');
    expect(ready).toEqual({ t: 'threw', name: 'ConfigError', message: 'flagplane needs TextEncoder.encodeInto (docs/runtimes.md)' });
    session.run('__native.pending()');
    expect(await session.next((m) => m.t === 'pending')).toMatchObject({ timers: 0, requests: 0, sockets: 0 });
    expect(session.ledger()).toEqual({ timers: 0, requests: 0, sockets: 0 });
  });

  it('hears a publish over its WebSocket', async () => {
    const { session, server } = await launch();
    // The socket may be up before the first snapshot: look from the first message on.
    await session.next((m) => m.t === 'changed' && (m.values as { connection: string }).connection === 'streaming', 10_000, 0);
    // 'streaming' is the client's view; publish once the server holds the subscription too.
    await waitFor(async () => {
      const listed = (await (await adminOf(server)('/admin/v1/environments')).json()) as { environments: Array<{ id: string; streams: number }> };
      return listed.environments.find(({ id }) => id === 'production')?.streams === 1;
    });
    const heard = session.next((m) => m.t === 'changed' && (m.keys as string[]).includes('search-page-size'));
    const patched = await adminOf(server)('/admin/v1/environments/production/flags/search-page-size', { method: 'PATCH', body: JSON.stringify({ on: false }) });
    expect(patched.status).toBe(200);
    expect((await heard).values).toMatchObject({ 'search-page-size': 10, connection: 'streaming' });
    expect(session.ledger().sockets).toBe(1);
  });

  it('offline through NetInfo it closes the socket and fetches nothing; back online it catches up and streams again', async () => {
    const { session, server } = await launch();
    const connection = (m: Message) => (m.values as { connection: string }).connection;
    await session.next((m) => m.t === 'changed' && connection(m) === 'streaming', 10_000, 0);
    const closing = session.next((m) => m.t === 'ws-close');
    session.run('__app.network(false)');
    expect(await closing).toMatchObject({ code: 1000 });
    await waitFor(async () => session.ledger().sockets === 0, 2_000);
    const asked = session.messages.length;
    expect((await adminOf(server)('/admin/v1/environments/production/flags/search-page-size', { method: 'PATCH', body: JSON.stringify({ on: false }) })).status).toBe(200);
    const caughtUp = session.next((m) => m.t === 'changed' && (m.values as Record<string, unknown>)['search-page-size'] === 10);
    session.run('__app.network(true)');
    // Nothing fetched and no socket while offline (the event flush has its own 5 s timer).
    expect(session.messages.slice(asked).filter((m) => (m.t === 'http' && m.method === 'GET') || m.t === 'ws-open')).toEqual([]);
    await caughtUp;
    await session.next((m) => m.t === 'changed' && connection(m) === 'streaming', 10_000, asked);
  });

  it('sends its evaluation events to the server, and close() leaves nothing running', async () => {
    const { session, server } = await launch();
    session.run('__app.read()');
    await session.next((m) => m.t === 'values');
    session.run('__app.close()');
    const closed = await session.next((m) => m.t === 'closed');
    expect(closed.stored).toEqual(expect.arrayContaining(['svc:anonymousId']));
    // The last flush is sent by close(), and has arrived when it resolves.
    const analytics = await adminOf(server)('/admin/v1/analytics');
    const stored = ((await analytics.json()) as { events: Array<Record<string, unknown>> }).events;
    const events = stored.map(({ type, key, value, userId }) => ({ type, key, value, userId }));
    expect(events).toEqual(expect.arrayContaining([{ type: 'evaluation', key: 'search-page-size', value: 20, userId: CONTEXT.userId }]));
    expect(new Set(events.map(({ key }) => key))).toEqual(new Set(['new-checkout', 'search-page-size', 'checkout-button-color']));
    // Once the turn in which close() resolved is over (the final flush's timeout is cleared just
    // after), no timer is armed and no request open; the socket is closing, and is gone when its
    // close handshake completes (as a WebSocket's close is, anywhere).
    session.run('__native.pending()');
    expect(await session.next((m) => m.t === 'pending')).toMatchObject({ timers: 0, requests: 0 });
    expect(session.ledger()).toMatchObject({ timers: 0, requests: 0 });
    await waitFor(async () => session.ledger().sockets === 0, 2_000);
    session.run('__native.pending()');
    expect(await session.next((m) => m.t === 'pending')).toMatchObject({ timers: 0, requests: 0, sockets: 0 });
    expect(session.ledger()).toEqual({ timers: 0, requests: 0, sockets: 0 });
    expect(await session.exit()).toBe(0);
    // Nothing reported through onError (the example logs it with console.warn), nothing uncaught.
    expect(session.messages.filter((m) => m.t === 'log')).toEqual([]);
    expect(session.output.filter((line) => /error|uncaught/i.test(line))).toEqual([]);
  });
});
