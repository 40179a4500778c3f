import type { EnginePing } from './contracts';

/** The engines an instance can depend on; memory needs no probe. */
export type EngineName = 'redis' | 'postgres';

/** One engine, as a readiness probe found it. */
export type EngineState =
  | { status: 'up'; ms: number }
  /** `timeout`: no answer within the probe's timeout; `refused`: the connection is down or the engine answered with an error. */
  | { status: 'down'; reason: 'timeout' | 'refused'; message: string };

export interface EngineProbe {
  engine: EngineName;
  ping: EnginePing;
}

/** Starts a timer and returns its cancel function (injected so tests control time). */
export type Schedule = (callback: () => void, ms: number) => () => void;

export const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

/** How long `GET /readyz` waits for each engine. */
export const DEFAULT_READINESS_TIMEOUT_MS = 1000;

async function probe(ping: EnginePing, timeoutMs: number, schedule: Schedule, now: () => number): Promise<EngineState> {
  const started = now();
  let cancel: () => void = () => undefined;
  const timedOut = new Promise<EngineState>((resolve) => {
    cancel = schedule(() => resolve({ status: 'down', reason: 'timeout', message: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  const answered = ping().then(
    (): EngineState => ({ status: 'up', ms: Math.round(now() - started) }),
    (error: unknown): EngineState => ({ status: 'down', reason: 'refused', message: (error as Error)?.message ?? String(error) }),
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    cancel();
  }
}

/** Pings every engine at once; each answers, fails or times out within `timeoutMs`. */
export async function probeEngines(
  probes: readonly EngineProbe[],
  timeoutMs: number,
  schedule: Schedule = realSchedule,
  now: () => number = () => performance.now(),
): Promise<Partial<Record<EngineName, EngineState>>> {
  const states = await Promise.all(probes.map(({ ping }) => probe(ping, timeoutMs, schedule, now)));
  return Object.fromEntries(probes.map(({ engine }, i) => [engine, states[i]]));
}
