/** What every runtime's run of scenario/scenario.mjs must show, asserted from the Node side. */
import { expect } from 'vitest';
import type { ReferenceServer } from '../../reference-server/index';
import { DEMO } from '../helpers/reference-server';
import type { RuntimeSuite, ScenarioSettings } from './runtime-driver';
import type { ScenarioProcess, StepLine } from './scenario-process';

/** The flag the scenario reads: demo.json serves 50 to plan `enterprise` (rule `enterprise-plan`), else 10. */
export const TARGETED_FLAG = 'search-page-size';

/** How long a runtime may take to exit by itself once the scenario has closed its client. */
export const EXIT_BOUND_MS = 3_000;

/** PATCHes `members` of a production flag through the admin API, as an operator would; resolves with the version published. */
export async function patchFlag(server: ReferenceServer, key: string, members: Record<string, unknown>): Promise<number> {
  const response = await fetch(`${server.baseUrl}/admin/v1/environments/production/flags/${encodeURIComponent(key)}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${DEMO.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(members),
  });
  const answer = (await response.json()) as { version: number };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.version;
}

/** The demo's values for a context its rule matches and one it does not, and a fallback for an unknown flag. */
export function expectDemoReads(reads: StepLine, version = 1): void {
  expect(reads.matching).toEqual({ key: TARGETED_FLAG, value: 50, reason: 'TARGETING_MATCH', variation: 2, ruleId: 'enterprise-plan', version });
  expect(reads.fallthrough).toEqual({ key: TARGETED_FLAG, value: 10, reason: 'DEFAULT', variation: 0, version });
  expect(reads.missing).toBe('fallback');
}

/** The scenario's reads arrived at the server as events: both evaluations, and the unknown flag. */
export function expectEventsReceived(server: ReferenceServer): void {
  expect(server.stores.analytics.events).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'evaluation', environmentId: 'production', key: TARGETED_FLAG, value: 50, userId: 'runtime-enterprise' }),
      expect.objectContaining({ type: 'evaluation', environmentId: 'production', key: TARGETED_FLAG, value: 10, userId: 'runtime-free' }),
    ]),
  );
  expect(server.stores.diagnostics.events).toContainEqual(expect.objectContaining({ type: 'unregistered_flag', key: 'no-such-flag' }));
}

/**
 * After `closed`: no error reached onError, tab sync stayed off unless `syncTabs` asked for it
 * (no BroadcastChannel opened, no snapshot from another tab), and the process ended by itself
 * with 0 within {@link EXIT_BOUND_MS}. Resolves with the `closed` line and how long the exit took.
 */
export async function expectClosedAndExited(run: ScenarioProcess, settings: ScenarioSettings = {}): Promise<{ closed: StepLine; exitMs: number }> {
  const closed = await run.step('closed');
  expect(closed.errors).toEqual([]);
  expect(closed.sources).not.toContain('tab');
  // null: the runtime has no BroadcastChannel at all.
  if (!settings.syncTabs) expect([null, { opened: 0, closed: 0 }]).toContainEqual(closed.channels);
  const exit = await run.exited(EXIT_BOUND_MS);
  expect({ code: exit.code, signal: exit.signal }, run.output()).toEqual({ code: 0, signal: null });
  return { closed, exitMs: exit.at - closed.at };
}

/**
 * The whole scenario with the stream: ready from the network, the demo's values, the events
 * at the server, a publish heard over the stream, and an exit without help after close().
 */
export async function expectDemoScenario(suite: RuntimeSuite): Promise<{ closed: StepLine; exitMs: number }> {
  const run = suite.run({ stream: true });
  const ready = await run.step('ready');
  expect(ready.ready).toEqual({ status: 'ready', source: 'network' });
  expect(ready.status).toMatchObject({ status: 'ready', source: 'network', version: 1, error: null });
  expectDemoReads(await run.step('reads'));
  await run.step('flushed');
  expectEventsReceived(suite.server);
  await run.step('waiting-for-publish');
  // The scenario's context is now the one no rule matches: it is served the new fallthrough.
  const version = await patchFlag(suite.server, TARGETED_FLAG, { fallthrough: { variation: 1 } });
  const heard = await run.step('published-value');
  // Heard, not polled: the default poll interval is 30 s, far beyond the step's timeout.
  expect(heard).toMatchObject({ key: TARGETED_FLAG, value: 20, status: { connection: 'streaming', source: 'network', version } });
  return expectClosedAndExited(run);
}

/** The scenario without the stream: ready, the demo's values, the events at the server, an exit after close(). */
export async function expectPollingScenario(suite: RuntimeSuite, settings: Omit<ScenarioSettings, 'stream'> = {}) {
  const run = suite.run(settings);
  const started = await run.step('started');
  const ready = await run.step('ready');
  expectDemoReads(await run.step('reads'));
  await run.step('flushed');
  expectEventsReceived(suite.server);
  return { started, ready, ...(await expectClosedAndExited(run, settings)) };
}
