import type { HandlerResult } from '../http/responses';
import { RouteError } from '../http/responses';
import type { Route } from '../http/router';
import type { AnalyticsStore, ControlStore } from '../stores/contracts';
import type { EngineProbe, EngineState, Schedule } from '../stores/readiness';
import { probeEngines } from '../stores/readiness';

/** Whether the instance still takes traffic: close() moves it to `closing`, for good. */
export type Lifecycle = 'serving' | 'closing';

export interface HealthDeps {
  /** The engines /readyz pings: those the stores live on. */
  probes: readonly EngineProbe[];
  /** How long /readyz waits for each engine. */
  timeoutMs: number;
  lifecycle(): Lifecycle;
  schedule?: Schedule;
}

/** A probe's answer is about now: no cache keeps it. */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/** Redis when the control store is on Redis, Postgres when the event stores are (one pool for both). */
export function engineProbes(stores: { control: ControlStore; analytics: AnalyticsStore }): EngineProbe[] {
  const probes: EngineProbe[] = [];
  if (stores.control.engine === 'redis') probes.push({ engine: 'redis', ping: stores.control.ping });
  if (stores.analytics.engine === 'postgres') probes.push({ engine: 'postgres', ping: stores.analytics.ping });
  return probes;
}

function unavailable(message: string): RouteError {
  return new RouteError(503, 'unavailable', message, undefined, NO_STORE);
}

function describeFailures(engines: Partial<Record<string, EngineState>>): string[] {
  return Object.entries(engines).flatMap(([engine, state]) =>
    state?.status === 'down' ? [`${engine} ${state.reason === 'timeout' ? 'timed out' : 'refused'} (${state.message})`] : [],
  );
}

/**
 * `/healthz`: the process answers. `/readyz`: every engine answered a ping within the timeout
 * and the instance is not closing. No auth, no CORS, no data beyond the engines' state
 * (docs/reference-server.md, "Health"); GET and HEAD.
 */
export function createHealthRoutes(deps: HealthDeps): Route[] {
  const live = (): HandlerResult => ({ status: 200, headers: NO_STORE, body: { status: 'ok' } });
  const ready = async (): Promise<HandlerResult> => {
    if (deps.lifecycle() === 'closing') throw unavailable('not ready: the instance is shutting down');
    const engines = await probeEngines(deps.probes, deps.timeoutMs, deps.schedule);
    // close() may have begun while the engines answered.
    if (deps.lifecycle() === 'closing') throw unavailable('not ready: the instance is shutting down');
    const failures = describeFailures(engines);
    if (failures.length > 0) throw unavailable(`not ready: ${failures.join('; ')}`);
    return { status: 200, headers: NO_STORE, body: { status: 'ready', engines } };
  };
  return [
    { pattern: '/healthz', methods: { GET: live, HEAD: live } },
    { pattern: '/readyz', methods: { GET: ready, HEAD: ready } },
  ];
}
