/**
 * A seeded, model-based fuzz of the client core (src/client.ts over the pure machine of
 * src/machine/transition.ts), against docs/client.md and docs/protocol.md.
 *
 * Each run builds one client (events off, syncTabs off) on a scripted HTTP transport, switchable
 * visibility and online sources, fake timers and, in about half the runs, fake stream sockets.
 * It applies a random sequence of steps (time, answers, refresh, setContext, setOverrides,
 * visibility and connectivity, stream frames and drops, subscribe / unsubscribe, reads), then
 * close() and a few more steps, and checks a set of invariants after every step against a small
 * model of what the docs promise. Everything random comes from one seed (mulberry32), so a failure
 * prints the seed and the step list and replays exactly:
 *
 *   FUZZ_SEED=1234 npx vitest run test/client/client-fuzz.test.ts
 *
 * `FUZZ_RUNS` changes the number of seeds (default below keeps the file at a few seconds).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ClientStatus, ReadyResult } from '../../src/machine/client-state';
import type { FlagplaneError } from '../../src/shared/errors';
import type { FlagsClient } from '../../src/client-types';
import type { EvaluationDetails } from '../../src/evaluation/evaluation-types';
import type { HttpRequest, HttpResult } from '../../src/http/http-types';
import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';
import { defaultScheduler } from '../../src/shared/scheduler';
import { defineStreamTransport } from '../../src/stream/stream-transport';
import { jsonResponse, response } from '../helpers/fake-transport';
import { switchableSource } from '../helpers/platform-source';
import { servingFlag } from '../helpers/snapshots';
import { BASE_URL, harness } from '../helpers/client-harness';
import { connectedFrame, createFakeTransport as createFakeSockets, type FakeSocket } from '../stream/harness';
import { mulberry32 } from '../helpers/prng';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_800_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});


function rngTools(random: () => number) {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  /** Picks a name by weight. */
  const weighted = <T extends string>(table: ReadonlyArray<readonly [T, number]>): T => {
    const total = table.reduce((sum, [, w]) => sum + w, 0);
    let r = random() * total;
    for (const [name, w] of table) if ((r -= w) < 0) return name;
    return table[table.length - 1]![0];
  };
  return { random, int, pick, chance, weighted };
}

/** Lets the transport's answer travel through http-client, the machine shell and dispatch. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

// --- The snapshots the fake server serves ------------------------------------------------

const RULE_FLAG = (version: number): Flag => ({
  on: true,
  variations: ['basic', 'pro', 'other'],
  offVariation: 0,
  rules: [{ id: 'pro', conditions: [{ kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro'] }], serve: { variation: 1 } }],
  fallthrough: { variation: version % 2 === 0 ? 0 : 2 },
  salt: 'rule',
  clientSide: true,
});

/**
 * Version `v`: `v` serves v (so the value read tells which snapshot is served), `obj` serves an
 * object equal across three versions (structural sharing), `rule` depends on the context, `typed`
 * changes JSON type, `gone` comes and goes, `broken` is sometimes malformed (PARSE_ERROR).
 */
function snapshotAt(version: number): FlagSnapshot {
  const flags: Record<string, Flag> = {
    v: servingFlag(version),
    obj: servingFlag({ n: Math.floor(version / 3), list: [1, 2] }),
    rule: RULE_FLAG(version),
    typed: servingFlag(version % 4 === 0 ? 7 : 'str'),
  };
  if (version % 3 !== 1) flags.gone = servingFlag(true);
  if (version % 5 === 2) flags.broken = { on: 'yes' } as unknown as Flag;
  else flags.broken = servingFlag('fine');
  return { schemaVersion: 1, version, environmentId: 'production', flags };
}

const DEFAULTS: Record<string, JsonValue> = { v: -1, obj: { n: -1 }, rule: 'none', typed: 'x', gone: false, broken: 'd', missing: 'm' };
/** Keys whose reads are compared step to step (`missing` is never served by a snapshot). */
const TRACKED = ['v', 'obj', 'rule', 'typed', 'gone', 'broken', 'missing'] as const;
const CONTEXTS = [{}, { attributes: { plan: 'pro' } }, { userId: 'u1', attributes: { plan: 'basic' } }, { userId: 'u2' }];
const OVERRIDE_KEYS = ['obj', 'rule', 'typed', 'missing'];
const OVERRIDE_VALUES: JsonValue[] = ['o', 3, { z: 1 }, null, true, ['x']];
/** Reads with odd keys and fallbacks: none may throw. */
const ODD_READS: Array<[unknown, unknown]> = [
  ['__proto__', undefined],
  ['toString', 1],
  ['constructor', undefined],
  [42, undefined],
  [undefined, 'f'],
  ['v', 'string-fallback'],
  ['obj', []],
];

// --- One fuzz run ------------------------------------------------------------------------

interface Req {
  id: number;
  request: HttpRequest;
  createdAt: number;
  phase: string;
  /** Answered by the transport (whether or not the client still listened). */
  answered: boolean;
  /** Never answered by the script: only an abort or a timeout ends it. */
  silent: boolean;
  abortedAt: number | null;
  resolve(result: HttpResult): void;
}

type Phase =
  | 'create'
  | 'advance'
  | 'answer'
  | 'refresh'
  | 'activity'
  | 'notice'
  | 'listener-refresh'
  | 'stream'
  | 'context'
  | 'overrides'
  | 'subscribe'
  | 'read'
  | 'close'
  | 'closed';

class FuzzFailure extends Error {}

async function fuzzRun(seed: number, stepCount: number): Promise<void> {
  const r = rngTools(mulberry32(seed));
  const jitter = mulberry32(seed ^ 0x9e3779b9);
  const log: string[] = [];
  /** A failure inside a callback (the transport, a listener) would be swallowed there: kept for the next check. */
  let firstFailure: string | null = null;
  const fail = (message: string): never => {
    firstFailure ??= message;
    throw new FuzzFailure(message);
  };
  const check = (condition: unknown, message: string) => {
    if (!condition) fail(message);
  };

  // Configuration of this run.
  const pollInterval = r.pick([0, 1000, 5000, 30_000]);
  const readyTimeout = r.pick([500, 2000, 5000]);
  const requestTimeout = r.pick([0, 3000, 10_000]);
  const withStream = r.chance(0.5);
  const bootstrapVersion = r.chance(0.25) ? r.int(0, 3) : null;
  const visibility = switchableSource(r.chance(0.85));
  const online = switchableSource(r.chance(0.85));
  log.push(
    `config: pollInterval=${pollInterval} readyTimeout=${readyTimeout} requestTimeout=${requestTimeout} stream=${withStream} ` +
      `bootstrap=${bootstrapVersion} visible=${visibility.value} online=${online.value}`,
  );

  // The model: what the docs say the client must show.
  const startedAt = Date.now();
  const errors: FlagplaneError[] = [];
  let phase: Phase = 'create';
  let held: number | null = bootstrapVersion;
  let etag: string | null = null;
  let source: ClientStatus['source'] = bootstrapVersion === null ? null : 'bootstrap';
  let errorCode: string | null = null;
  /** The machine's `held` fetch state: a Retry-After failure, until the next request. */
  let heldRetry: { at: number; retryAfterMs: number } | null = null;
  let lastOutcomeFailed = false;
  let succeeded = false;
  let firstAcceptAt: number | null = bootstrapVersion === null ? null : startedAt;
  let expectedErrors = 0;
  let noticesSent = 0;
  let closed = false;
  let closeReturned = false;
  let revoked = false;
  let socketsAtRevoke = 0;
  /**
   * A fetch started while active that ends while hidden or offline arms its next poll or retry
   * anyway; the timer fires and fetches nothing (no request while paused is checked apart).
   * Reported as an observation, not asserted: see the note at the end of this file.
   */
  let outcomeWhilePaused = false;
  let expectedStreamErrors = 0;
  const activity = () => (!online.value ? 'offline' : !visibility.value ? 'hidden' : 'active');

  let fakeSockets: ReturnType<typeof createFakeSockets> | undefined;
  let closedAt: number | null = null;
  // The HTTP transport: every request waits for the script, unless answered at once.
  const reqs: Req[] = [];
  /** Requests since `before`, but for those a listener's own refresh() made. */
  const made = (before: number) => reqs.slice(before).filter((q) => q.phase !== 'listener-refresh').length;
  const live = () => {
    const last = reqs.at(-1);
    return last && !last.answered && !last.request.signal.aborted && !closed ? last : undefined;
  };
  let immediate: (() => HttpResult) | null = null;

  const h = harness(
    (request) =>
      new Promise<HttpResult | 'hang'>((resolveReply) => {
        const now = Date.now();
        log.push(`    request #${reqs.length} ${request.url.slice(BASE_URL.length)} if-none-match=${request.headers['if-none-match'] ?? null} (${phase}, ${activity()}, t+${now - startedAt})`);
        // A newer fetch aborts the older (docs/client.md, refresh()): at most one in flight.
        for (const old of reqs) check(old.answered || old.request.signal.aborted, `request #${old.id} still in flight when #${reqs.length} started`);
        check(!closed, 'a request after close()');
        check(activity() !== 'offline', `a request while offline (phase ${phase})`);
        check(
          ['create', 'advance', 'refresh', 'activity', 'notice', 'listener-refresh'].includes(phase),
          `a request during phase ${phase}, which asks for none`,
        );
        if (phase === 'advance') check(activity() === 'active', `a poll while ${activity()} (no polling while paused)`);
        // pollInterval 0 "fetches once": after a success, time alone never fetches (catch-ups aside).
        if (phase === 'advance' && pollInterval === 0 && succeeded && !lastOutcomeFailed && noticesSent === 0)
          check(false, 'pollInterval 0: a poll after a successful fetch');
        const inm = request.headers['if-none-match'] ?? null;
        check(inm === etag, `If-None-Match ${inm}, but the ETag held is ${etag}`);
        heldRetry = null;
        const entry: Req = {
          id: reqs.length,
          request,
          createdAt: now,
          phase,
          answered: false,
          silent: r.chance(0.1),
          abortedAt: null,
          resolve: (result) => resolveReply(result),
        };
        // Half the requests honour their signal, the others ignore it (the client cuts them itself).
        const honours = r.chance(0.5);
        request.signal.addEventListener('abort', () => {
          entry.abortedAt = Date.now();
          // The only abort while time passes is a request timeout (no fetch starts while one is in flight).
          const timedOut =
            phase === 'advance' && !entry.answered && requestTimeout > 0 && entry.abortedAt - entry.createdAt === requestTimeout && entry === reqs.at(-1) && !closed;
          if (timedOut) {
            log.push(`    (request #${entry.id} timed out)`);
            expectedErrors++;
            if (activity() !== 'active') outcomeWhilePaused = true;
            errorCode = 'timeout';
            lastOutcomeFailed = true;
          }
          if (honours && !entry.answered) {
            entry.answered = true;
            resolveReply({ kind: 'aborted' });
          }
        });
        reqs.push(entry);
        if (immediate) {
          // A scripted immediate answer (set by the step that expects this request).
          answer(entry, immediate());
          immediate = null;
        } else if (r.chance(0.3)) answer(entry, randomReply());
      }),
    {
      pollInterval,
      readyTimeout,
      requestTimeout,
      defaults: DEFAULTS,
      ...(bootstrapVersion === null ? {} : { bootstrap: snapshotAt(bootstrapVersion) }),
      scheduler: { ...defaultScheduler, random: jitter },
      visibilitySource: visibility.visibility,
      onlineSource: online.online,
      onError: (error: FlagplaneError) => {
        errors.push(error);
        if (closeFrom === 'onError') closeNow('onError');
      },
      ...(withStream ? { streamUrl: 'https://stream.flags.test', streamTransport: defineStreamTransport(sockets().transport) } : {}),
    },
  );
  function sockets() {
    return (fakeSockets ??= createFakeSockets());
  }
  const client = h.client as unknown as FlagsClient;

  /** close() as the app calls it: directly, or from inside a listener or onError (docs/client.md: "Safe from inside a listener or `onError`"). */
  let closePromise: Promise<void> | null = null;
  let closeFrom: 'listener' | 'onError' | null = null;
  function closeNow(where: string): void {
    if (closed) return;
    log.push(`    close() from ${where}`);
    closed = true;
    closedAt = Date.now();
    closePromise = client.close();
    closeReturned = true;
    phase = 'closed';
  }

  /** A random reply; the model learns of it in `answer`. */
  function randomReply(): HttpResult {
    const kind = r.weighted([
      ['200', 8],
      ['304', 2],
      ['retry', 2],
      ['500', 1],
      ['401', 1],
      ['network', 1],
      ['schema', 1],
    ] as const);
    const base = held ?? 0;
    switch (kind) {
      case '200': {
        const version = Math.max(0, base + r.int(-2, 3));
        return jsonResponse(200, snapshotAt(version), r.chance(0.85) ? { etag: `"snapshot-${version}"` } : {});
      }
      case '304':
        return response(304, '', { etag: etag ?? '"none"' });
      case 'retry': {
        const status = r.pick([429, 503]);
        const seconds = r.int(0, 90);
        const retryAfter = r.weighted([
          ['seconds', 3],
          ['date', 1],
          ['garbage', 1],
          ['none', 1],
        ] as const);
        const header: Record<string, string> =
          retryAfter === 'seconds'
            ? { 'retry-after': String(seconds) }
            : retryAfter === 'date'
              ? { 'retry-after': new Date(Date.now() + seconds * 1000).toUTCString() }
              : retryAfter === 'garbage'
                ? { 'retry-after': 'soon' }
                : {};
        return jsonResponse(status, { error: { code: 'busy', message: 'later' } }, header);
      }
      case '500':
        // A Retry-After on a 500 is not honoured (only 429 and 503).
        return jsonResponse(500, { error: { code: 'internal', message: 'oops' } }, r.chance(0.5) ? { 'retry-after': '60' } : {});
      case '401':
        return jsonResponse(401, { error: { code: 'unauthorized', message: 'bad key' } });
      case 'network':
        return { kind: 'network-error', cause: new Error('ECONNRESET') };
      case 'schema':
        return r.chance(0.5) ? response(200, 'not json') : jsonResponse(200, { ...snapshotAt(base + 1), schemaVersion: 2 });
    }
  }

  /** Answers a request and updates the model when the client still listens to it. */
  function answer(entry: Req, result: HttpResult): void {
    const listenedTo = !entry.answered && !entry.request.signal.aborted;
    entry.answered = true;
    entry.resolve(result);
    // Whether the client still reads it is known once the code that answered has run: a listener
    // of a change it caused (a stream state, say) may refresh and so replace this request.
    queueMicrotask(() => learn(entry, result, listenedTo && entry === reqs.at(-1) && !closed));
  }

  function learn(entry: Req, result: HttpResult, counted: boolean): void {
    const describe = result.kind === 'response' ? `${result.status}${result.status === 200 ? ` v${versionOf(result)}` : ''}` : result.kind;
    log.push(`    answer #${entry.id}: ${describe}${counted ? '' : ' (no longer listened to)'}`);
    if (!counted) return;
    if (activity() !== 'active') outcomeWhilePaused = true;
    if (result.kind === 'network-error') return failed('network', null);
    if (result.kind !== 'response') return;
    if (result.status === 304) {
      succeeded = true;
      errorCode = null;
      lastOutcomeFailed = false;
      if (held !== null) source = 'network';
      return;
    }
    if (result.status === 200) {
      const version = versionOf(result);
      if (version === null) return failed('schema', null);
      succeeded = true;
      errorCode = null;
      lastOutcomeFailed = false;
      if (held === null || version >= held) {
        if (held === null || version > held || result.header('etag')) etag = result.header('etag');
        held = version;
        source = 'network';
        firstAcceptAt ??= Date.now();
      }
      return;
    }
    const retry = result.status === 429 || result.status === 503 ? parseRetryAfterMs(result.header('retry-after')) : null;
    failed('http', retry);
  }

  function failed(code: string, retryAfterMs: number | null): void {
    expectedErrors++;
    errorCode = code;
    lastOutcomeFailed = true;
    heldRetry = retryAfterMs ? { at: Date.now(), retryAfterMs } : null;
  }

  // Listeners: one observer for the whole run, plus random ones (some throw, some refresh).
  const heardChanged = new Set<string>();
  let heardStatus: ClientStatus | null = null;
  let heardAnyChange = false;
  let heardStatusChange = false;
  let listenerCallsAfterClose = 0;
  let listenerThrows = 0;
  client.subscribe(({ changed, status }) => {
    if (closeReturned) listenerCallsAfterClose++;
    if (closeFrom === 'listener') closeNow('a listener');
    for (const key of changed) {
      heardChanged.add(key);
      // `changed` names keys whose value, variation, reason or rule changed; a deep-equal value counts
      // as no change (structural sharing). Overrides are exempt: a new override object notifies by design.
      const before = prevDetails.get(key);
      if (before && !overridesOn.has(key) && before.reason !== 'OVERRIDE' && phase !== 'overrides') {
        const now = client.getDetails(key);
        if (jsonEq(now.value, before.value) && now.variation === before.variation && now.reason === before.reason && now.ruleId === before.ruleId && now.errorCode === before.errorCode)
          fail(`a listener heard ${key} change, but it reads the same (${JSON.stringify(before)} → ${JSON.stringify(now)})`);
        prevDetails.set(key, now);
      }
    }
    if (changed.size > 0) heardAnyChange = true;
    const last = heardStatus ?? prevStatus;
    if (status !== last) {
      heardStatusChange = true;
      // A new status object only when a field changed (docs/client.md: "the same object until one of them changes").
      if ((Object.keys(status) as Array<keyof ClientStatus>).every((k) => status[k] === last[k])) fail('a listener heard a new status object with the same fields');
    } else if (changed.size === 0) fail('a listener was notified with no flag and no status changed');
    heardStatus = status;
  });
  const extra: Array<{ unsubscribe: () => void; name: string; gone: boolean; callsAfterGone: number }> = [];
  const refreshes: Array<{ settled: boolean; rejected: boolean; request: Req | undefined }> = [];
  const trackRefresh = (promise: Promise<void>) => {
    // The request this refresh() made (none offline): it resolves only once that one is done.
    const entry = { settled: false, rejected: false, request: activity() === 'offline' ? undefined : reqs.at(-1) };
    refreshes.push(entry);
    promise.then(
      () => (entry.settled = true),
      () => ((entry.settled = true), (entry.rejected = true)),
    );
  };

  // ready(): the same promise every call, settles once, never rejects.
  const readyPromise = client.ready();
  let readyResult: ReadyResult | null = null;
  let readySettlements = 0;
  let readyRejected = false;
  readyPromise.then(
    (result) => ((readyResult = result), readySettlements++),
    () => ((readyRejected = true), readySettlements++),
  );

  // Reads as they were after the last step, to check identities.
  let prevStatus = client.getStatus();
  let prevAll = client.getAll();
  const prevDetails = new Map<string, EvaluationDetails<JsonValue | undefined>>();
  const readAll = () => {
    for (const key of TRACKED) prevDetails.set(key, client.getDetails(key));
  };
  readAll();
  let overridesOn = new Set<string>();

  function openSockets(): FakeSocket[] {
    return (fakeSockets?.sockets ?? []).filter((s) => s.closeCalls.length === 0 && !(s as FakeSocket & { dropped?: boolean }).dropped);
  }
  const connectedSockets = new WeakSet<FakeSocket>();

  /** Every invariant, after every step. */
  function checkInvariants(): void {
    if (firstFailure) fail(firstFailure);
    const status = client.getStatus();
    // Reads never throw.
    for (const [key, fallback] of ODD_READS) {
      try {
        (client.get as (k: unknown, f?: unknown) => unknown)(key, fallback);
        (client.getDetails as (k: unknown, f?: unknown) => unknown)(key, fallback);
      } catch (error) {
        fail(`a read of ${String(key)} threw: ${(error as Error).message}`);
      }
    }
    const all = client.getAll();
    check(client.getAll() === all, 'getAll() twice in a row gave two objects');
    // At most one snapshot request in flight.
    check(reqs.filter((q) => !q.answered && !q.request.signal.aborted).length <= (closed ? 0 : 1), 'more than one request in flight');
    // The version served, its source, the error, the readiness.
    check(status.version === held, `getStatus().version is ${status.version}, the model holds ${held}`);
    if (!closed || closeReturned) {
      check(status.source === source, `getStatus().source is ${status.source}, expected ${source}`);
      check((status.error?.code ?? null) === errorCode, `getStatus().error is ${status.error?.code ?? null}, expected ${errorCode}`);
    }
    const elapsed = (closedAt ?? Date.now()) - startedAt;
    const readiness = held !== null ? 'ready' : elapsed >= readyTimeout ? 'failed' : 'initializing';
    check(status.status === readiness, `getStatus().status is ${status.status}, expected ${readiness}`);
    // The value read tells which snapshot is served: the one whose version the status gives.
    const v = client.getDetails('v');
    if (held === null) check(v.value === DEFAULTS.v && v.errorCode === 'PROVIDER_NOT_READY', `before any snapshot v reads ${JSON.stringify(v)}`);
    else check(v.value === held && v.version === held, `v reads ${JSON.stringify(v)} while the status says version ${held}`);
    // No polling timer while paused: without a stream, a settled ready() and no request in flight,
    // nothing is left to wake a hidden or offline client.
    // (A Retry-After wait may keep its timer: it is what ends the wait.)
    if (!withStream && !closed && activity() !== 'active' && readyResult && !live() && !outcomeWhilePaused && !heldRetry)
      check(vi.getTimerCount() === 0, `${vi.getTimerCount()} timer(s) armed while ${activity()} and idle`);
    // Connection.
    const expectedConnection = closed
      ? 'stopped'
      : !withStream || revoked || (fakeSockets?.sockets.length ?? 0) === 0
        ? 'polling'
        : activity() === 'offline'
          ? 'reconnecting'
          : openSockets().length === 0
            ? 'reconnecting'
            : connectedSockets.has(openSockets()[0]!)
              ? 'streaming'
              : 'connecting';
    check(status.connection === expectedConnection, `connection is ${status.connection}, expected ${expectedConnection}`);
    check(openSockets().length <= 1, 'more than one socket open');
    if (activity() === 'offline' || closed || revoked) check(openSockets().length === 0, 'a socket open while offline, revoked or closed');
    // Identities: the status is the same object until a field changes, and listeners heard each change.
    const same = (Object.keys(status) as Array<keyof ClientStatus>).every((k) => status[k] === prevStatus[k]);
    // (A change and a change back within one step, heard by the listeners, may leave a new object.)
    if (same && !heardStatusChange) check(status === prevStatus, 'a new status object with the same fields');
    if (!closed && status !== prevStatus) check(heardStatus === status, 'the status changed but the listeners did not hear the current one');
    if (!heardAnyChange && !closed) check(all === prevAll, 'getAll() is a new object though no flag changed');
    for (const key of TRACKED) {
      const now = client.getDetails(key);
      const before = prevDetails.get(key)!;
      check(Object.is(client.get(key), now.value), `get(${key}) and getDetails(${key}).value differ`);
      check(Object.is(all[key], now.value), `getAll().${key} is ${JSON.stringify(all[key])}, get() reads ${JSON.stringify(now.value)}`);
      if (!heardChanged.has(key) && !closed) {
        // No change heard: the same value object (structural sharing) and the same outcome.
        check(Object.is(now.value, before.value), `${key}: a new value without a change notification (${JSON.stringify(before.value)} → ${JSON.stringify(now.value)})`);
        check(now.variation === before.variation && now.reason === before.reason && now.ruleId === before.ruleId, `${key}: outcome changed without a notification`);
        // Snapshot-served details only: an override's details are rebuilt by each setOverrides()
        // (an equal primitive is no change to notify), and error reads are new objects by design
        // (react/hooks.ts keeps the previous one while equal).
        const served = (d: EvaluationDetails<JsonValue | undefined>) => !d.errorCode && d.reason !== 'OVERRIDE';
        if (now.version === before.version && served(now) && served(before)) check(now === before, `${key}: a new details object for the same outcome and version`);
      }
      if (overridesOn.has(key) && !now.errorCode) check(now.reason === 'OVERRIDE', `${key}: the override is not served`);
    }
    // Failures: each exactly once through onError (stream failures are checked apart).
    const nonStream = errors.filter((e) => e.code !== 'stream');
    const streamErrors = errors.filter((e) => e.code === 'stream');
    const silences = streamErrors.filter((e) => /silent for/.test(e.message)).length;
    check(streamErrors.length - silences === expectedStreamErrors, `onError heard ${streamErrors.length - silences} stream failures (${streamErrors.map((e) => e.message).join('; ')}), expected ${expectedStreamErrors}`);
    check(nonStream.length === expectedErrors + listenerThrows, `onError heard ${nonStream.length} failures (${nonStream.map((e) => e.code).join(',')}), expected ${expectedErrors + listenerThrows}`);
    // ready().
    check(client.ready() === readyPromise, 'ready() returned another promise');
    check(!readyRejected && readySettlements <= 1, 'ready() rejected or settled twice');
    if (readyResult) {
      const result = readyResult as ReadyResult;
      if (result.status === 'ready') {
        check(firstAcceptAt !== null && firstAcceptAt - startedAt <= readyTimeout, `ready() resolved ready though the first snapshot came at ${firstAcceptAt}`);
        check(result.source === (bootstrapVersion === null ? 'network' : 'bootstrap'), `ready() source ${result.source}`);
      } else if (result.status === 'timeout') check(firstAcceptAt === null || firstAcceptAt - startedAt >= readyTimeout, 'ready() timed out though a snapshot came first');
      else check(closed && firstAcceptAt === null, 'ready() resolved closed, but close() was not called first');
    } else check(!closed && elapsed < readyTimeout && firstAcceptAt === null, 'ready() is still pending');
    // refresh() resolves when its fetch (or the one that replaced it) is done.
    if (!live()) check(refreshes.every((p) => p.settled), 'a refresh() is still pending though no fetch is in flight');
    for (const p of refreshes) if (p.request && p.request === live()) check(!p.settled, `refresh() resolved while its request #${p.request.id} is still in flight`);
    check(refreshes.every((p) => !p.rejected), 'a refresh() rejected');
    // Unsubscribed listeners hear nothing more.
    for (const l of extra) check(l.callsAfterGone === 0, `listener ${l.name} heard a change after unsubscribing`);
    check(listenerCallsAfterClose === 0, 'a listener was called after close()');

    prevStatus = status;
    prevAll = all;
    readAll();
    heardChanged.clear();
    heardAnyChange = false;
    heardStatusChange = false;
  }

  let stepIndex = 0;
  async function step(name: string, body: () => void | Promise<void>): Promise<void> {
    log.push(`#${stepIndex++} t+${Date.now() - startedAt} ${name}`);
    await body();
    await settle();
    if (phase !== 'closed') phase = 'read';
    checkInvariants();
  }

  try {
    await settle();
    phase = 'read';
    checkInvariants();

    for (let i = 0; i < stepCount; i++) {
      const kind = r.weighted([
        ['advance', 6],
        ['answer', 7],
        ['refresh', 2],
        ['context', 1],
        ['overrides', 1],
        ['hide', 1],
        ['show', 1.5],
        ['offline', 0.7],
        ['online', 1.2],
        ['subscribe', 1],
        ['unsubscribe', 1],
        ...(withStream
          ? ([
              ['sock-connect', 3],
              ['notice', 4],
              ['sock-drop', 1],
              ['stale-frame', 0.5],
              ['sock-revoke', 0.1],
            ] as const)
          : []),
      ] as const);
      switch (kind) {
        case 'advance': {
          const size = r.weighted([
            ['tiny', 3],
            ['small', 3],
            ['large', 1],
          ] as const);
          const ms = size === 'tiny' ? r.int(0, 300) : size === 'small' ? r.int(500, 6000) : r.int(100_000, 160_000);
          const liveAtStart = live();
          const dueAtStart = pollInterval > 0 || lastOutcomeFailed;
          const countBefore = reqs.length;
          const activeThroughout = activity() === 'active';
          await step(`advance ${ms}`, async () => {
            phase = 'advance';
            await vi.advanceTimersByTimeAsync(ms);
          });
          // Liveness: active for a long time, and something is due (a poll or a retry): it is fetched.
          if (size === 'large' && activeThroughout && dueAtStart && (!liveAtStart || requestTimeout > 0))
            check(reqs.length > countBefore, `no request in ${ms} ms while active and due`);
          break;
        }
        case 'answer': {
          const pending = reqs.filter((q) => !q.answered && !q.silent);
          if (pending.length === 0) break;
          const current = live();
          const target = current && !current.silent && r.chance(0.8) ? current : r.pick(pending);
          const reply = randomReply();
          await step(`answer #${target.id}`, () => {
            phase = 'answer';
            answer(target, reply);
          });
          break;
        }
        case 'refresh': {
          const before = reqs.length;
          const wasOffline = activity() === 'offline';
          await step('refresh()', () => {
            phase = 'refresh';
            trackRefresh(client.refresh());
          });
          // Fetches now (aborting a fetch in flight); offline, no request.
          check(made(before) === (wasOffline ? 0 : 1), `refresh() made ${made(before)} requests (offline: ${wasOffline})`);
          if (wasOffline) check(refreshes.at(-1)!.settled, 'refresh() offline did not resolve at once');
          break;
        }
        case 'context': {
          const next = r.pick(CONTEXTS);
          await step(`setContext(${JSON.stringify(next)})`, () => {
            phase = 'context';
            client.setContext(next);
          });
          if (!closed) check(client.getContext() === next, 'getContext() is not the context set');
          break;
        }
        case 'overrides': {
          const invalid = r.chance(0.15);
          const values: Record<string, JsonValue> = {};
          if (!invalid) for (const key of OVERRIDE_KEYS) if (r.chance(0.4)) values[key] = r.pick(OVERRIDE_VALUES);
          const arg = invalid ? r.pick<unknown>([5, 'x', [1], true]) : r.chance(0.1) ? null : values;
          await step(`setOverrides(${JSON.stringify(arg)})`, () => {
            phase = 'overrides';
            // After close() (from onError or a listener) it changes nothing and reports nothing.
            if (!closed) {
              if (invalid) expectedErrors++;
              else overridesOn = new Set(arg === null ? [] : Object.keys(values));
            }
            client.setOverrides(arg as Record<string, JsonValue>);
          });
          break;
        }
        case 'hide':
        case 'show':
        case 'offline':
        case 'online': {
          const before = reqs.length;
          const was = activity();
          const liveBefore = live();
          await step(kind, () => {
            phase = 'activity';
            if (kind === 'hide' || kind === 'show') visibility.set(kind === 'show');
            else online.set(kind === 'online');
          });
          if (activity() === 'active') outcomeWhilePaused = false;
          // Back to active: a refresh at once, unless a fetch is already in flight.
          const expected = was !== 'active' && activity() === 'active' && !liveBefore ? 1 : 0;
          check(made(before) === expected, `${kind} (${was} → ${activity()}) made ${made(before)} requests, expected ${expected}`);
          break;
        }
        case 'subscribe': {
          const name = `L${extra.length}`;
          const behaviour = r.weighted([
            ['quiet', 3],
            ['throws', 1],
            ['refreshes', 1],
            ['unsubscribes-self', 1],
          ] as const);
          await step(`subscribe ${name} (${behaviour})`, () => {
            phase = 'subscribe';
            const entry = { unsubscribe: () => {}, name, gone: false, callsAfterGone: 0 };
            entry.unsubscribe = client.subscribe(() => {
              if (entry.gone) entry.callsAfterGone++;
              if (closeReturned) listenerCallsAfterClose++;
              if (behaviour === 'throws') {
                listenerThrows++;
                throw new Error(`${name} fails`);
              }
              if (behaviour === 'unsubscribes-self') {
                entry.gone = true;
                entry.unsubscribe();
              }
              // Not on a failed fetch's notification: that fetch's retry timer is armed after the
              // listener's refresh and outlives it (it.fails 'refresh() from a listener of a failed fetch…').
              if (behaviour === 'refreshes' && r.chance(0.3) && !closed) {
                const outer = phase;
                phase = 'listener-refresh';
                log.push(`    ${name} calls refresh()`);
                trackRefresh(client.refresh());
                phase = outer;
              }
            });
            extra.push(entry);
          });
          break;
        }
        case 'unsubscribe': {
          const still = extra.filter((l) => !l.gone);
          if (still.length === 0) break;
          const target = r.pick(still);
          await step(`unsubscribe ${target.name}`, () => {
            phase = 'subscribe';
            target.gone = true;
            target.unsubscribe();
          });
          break;
        }
        case 'sock-connect': {
          const socket = openSockets()[0];
          if (!socket || connectedSockets.has(socket)) break;
          const heldBefore = held;
          await step(`socket #${fakeSockets!.sockets.indexOf(socket)} open + connected`, () => {
            phase = 'stream';
            socket.open();
            connectedSockets.add(socket);
            socket.receive(connectedFrame(15_000, 'production', held ?? 0));
          });
          const subscribe = socket.sent.at(-1);
          check(subscribe?.type === 'subscribe' && subscribe.lastKnownVersion === heldBefore, `subscribe sent ${JSON.stringify(subscribe)}, held ${heldBefore}`);
          break;
        }
        case 'notice': {
          const socket = openSockets()[0];
          if (!socket || !connectedSockets.has(socket)) break;
          const type = r.chance(0.75) ? 'snapshot.updated' : 'snapshot.resync';
          const version = Math.max(0, (held ?? 0) + r.int(-1, 3));
          const before = reqs.length;
          const heldBefore = held;
          const liveBefore = live();
          const retryWait = heldRetry as { at: number; retryAfterMs: number } | null;
          await step(`${type} v${version}`, () => {
            phase = 'notice';
            noticesSent++;
            // A fresh request answered at once half the time, so that catch-ups happen too.
            if (r.chance(0.5)) immediate = randomReply;
            socket.receive({ type, environmentId: 'production', version, ...(type === 'snapshot.resync' ? { reason: 'operator' } : {}) });
          });
          immediate = null;
          const newer = type === 'snapshot.resync' || heldBefore === null || version > heldBefore;
          const madeHere = made(before);
          if (madeHere > 0) {
            const minVersion = reqs[before]!.request.headers['flagplane-min-version'];
            check(Number(minVersion) >= version, `the notice's fetch asks minVersion ${minVersion} < ${version}`);
            check(!liveBefore && !retryWait, 'a notice fetched while a fetch was in flight or a Retry-After wait was running');
            check(newer, `${type} v${version} fetched, though v${heldBefore} is held (docs/client.md: "an updated for a version it already holds is ignored")`);
          } else {
            check(liveBefore || retryWait || !newer, `${type} v${version} made no request (held ${held})`);
          }
          break;
        }
        case 'sock-drop': {
          const socket = openSockets()[0];
          if (!socket) break;
          const how = r.pick(['1006', '1001', 'error', '4400'] as const);
          await step(`socket #${fakeSockets!.sockets.indexOf(socket)} dropped (${how})`, () => {
            phase = 'stream';
            (socket as FakeSocket & { dropped?: boolean }).dropped = true;
            if (how === 'error' || how === '4400') expectedStreamErrors++;
            if (how === 'error') socket.fail();
            else socket.serverClose(Number(how), 'bye');
          });
          break;
        }
        case 'stale-frame': {
          const stale = fakeSockets!.sockets.filter((s) => !openSockets().includes(s));
          if (stale.length === 0) break;
          const socket = r.pick(stale);
          const before = reqs.length;
          const errorsBefore = errors.length;
          await step(`stale socket #${fakeSockets!.sockets.indexOf(socket)} sends snapshot.updated v${(held ?? 0) + 10}`, () => {
            phase = 'stream';
            socket.receive({ type: 'snapshot.updated', environmentId: 'production', version: (held ?? 0) + 10 });
            socket.serverClose(4400, 'late');
          });
          check(reqs.length === before && errors.length === errorsBefore, 'a closed socket still reached the client');
          break;
        }
        case 'sock-revoke': {
          const socket = openSockets()[0];
          if (!socket) break;
          await step(`socket #${fakeSockets!.sockets.indexOf(socket)} closed with 4401`, () => {
            phase = 'stream';
            (socket as FakeSocket & { dropped?: boolean }).dropped = true;
            revoked = true;
            socketsAtRevoke = fakeSockets!.sockets.length;
            expectedStreamErrors++;
            socket.serverClose(4401, 'bad key');
          });
          break;
        }
      }
      // Reads are steps too, now and then.
      if (r.chance(0.1)) await step('reads', () => void client.getAll());
      // 4401: no reconnect, not even after the device goes offline and back (docs/client.md, Stream).
      if (revoked) check(fakeSockets!.sockets.length === socketsAtRevoke, 'a socket opened after 4401');
    }

    // close(): every timer cleared, every request aborted, every socket closed, nothing more.
    const closeVia = r.weighted([
      ['direct', 3],
      ['listener', 1],
      ['onError', 1],
    ] as const);
    if (closeVia !== 'direct') {
      // Wait for the next notification or failure, driven by answers and time.
      closeFrom = closeVia;
      for (let i = 0; i < 12 && !closed; i++) {
        const current = live();
        if (current && !current.silent && r.chance(0.7)) {
          const reply = randomReply();
          await step(`answer #${current.id} (close() armed in ${closeVia})`, () => {
            phase = 'answer';
            answer(current, reply);
          });
        } else
          await step(`advance (close() armed in ${closeVia})`, async () => {
            phase = 'advance';
            await vi.advanceTimersByTimeAsync(r.int(100, 40_000));
          });
      }
    }
    await step('close()', async () => {
      phase = 'close';
      closeNow('the test');
      await closePromise;
    });
    check(vi.getTimerCount() === 0, `${vi.getTimerCount()} timers left after close()`);
    check(reqs.every((q) => q.answered || q.request.signal.aborted), 'a request not aborted by close()');
    check(openSockets().length === 0, 'a socket left open after close()');
    check(visibility.listeners.size === 0 && online.listeners.size === 0, 'platform sources still subscribed after close()');
    check(readyResult !== null, 'ready() unsettled after close()');
    await settle();
    check(refreshes.every((p) => p.settled && !p.rejected), 'a refresh() promise unsettled (or rejected) after close()');
    const requestCount = reqs.length;
    const socketCount = fakeSockets?.sockets.length ?? 0;
    const errorCount = errors.length;
    for (let i = 0; i < 8; i++) {
      const kind = r.pick(['advance', 'answer', 'refresh', 'context', 'toggle', 'frame', 'overrides'] as const);
      await step(`after close: ${kind}`, async () => {
        if (kind === 'advance') await vi.advanceTimersByTimeAsync(r.int(0, 120_000));
        if (kind === 'answer') {
          const pending = reqs.filter((q) => !q.answered);
          if (pending.length > 0) answer(r.pick(pending), randomReply());
        }
        if (kind === 'refresh') trackRefresh(client.refresh());
        if (kind === 'context') client.setContext(r.pick(CONTEXTS));
        // After close() reads stay as they were: the overrides and the context change nothing.
        if (kind === 'overrides') client.setOverrides({ obj: 'closed' });
        if (kind === 'toggle') (r.chance(0.5) ? visibility : online).set(r.chance(0.5));
        if (kind === 'frame' && fakeSockets?.sockets.length) fakeSockets.last.receive({ type: 'snapshot.updated', version: (held ?? 0) + 5 });
      });
      check(vi.getTimerCount() === 0, `a timer after close() (${kind})`);
    }
    await settle();
    check(reqs.length === requestCount, 'a request after close()');
    check((fakeSockets?.sockets.length ?? 0) === socketCount, 'a socket opened after close()');
    check(errors.length === errorCount, `onError after close(): ${errors.slice(errorCount).map((e) => e.message).join('; ')}`);
    check(refreshes.every((p) => p.settled && !p.rejected), 'a refresh() after close() did not resolve');
    if (process.env.FUZZ_STATS) {
      const text = log.join('\n');
      const count = (re: RegExp) => (text.match(re) ?? []).length;
      console.log(
        `seed ${seed}: requests ${reqs.length}, counted answers ${count(/answer #\d+: (?!.*no longer)/g)}, ignored ${count(/no longer listened/g)}, ` +
          `timeouts ${count(/timed out/g)}, notices ${noticesSent}, sockets ${fakeSockets?.sockets.length ?? 0}, ` +
          `close from ${count(/close\(\) from a listener/g) ? 'listener' : count(/close\(\) from onError/g) ? 'onError' : 'test'}, errors ${errors.length}, held ${held}`,
      );
    }
  } catch (error) {
    if (!(error instanceof FuzzFailure)) log.push(`(unexpected exception)`);
    throw new Error(`client fuzz failed, seed ${seed}: ${(error as Error).message}\n` + `replay: FUZZ_SEED=${seed} npx vitest run test/client/client-fuzz.test.ts\n` + log.join('\n'), { cause: error });
  } finally {
    if (!closed) await client.close();
    vi.clearAllTimers();
  }
}

const jsonEq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function versionOf(result: Extract<HttpResult, { kind: 'response' }>): number | null {
  try {
    const body = JSON.parse(result.body) as FlagSnapshot;
    return body.schemaVersion === 1 && Number.isInteger(body.version) ? body.version : null;
  } catch {
    return null;
  }
}

/** Retry-After as docs/client.md reads it: delta-seconds or an HTTP date, in ms; null when neither. */
function parseRetryAfterMs(value: string | null): number | null {
  if (!value) return null;
  const ms = Number.isFinite(+value) ? +value * 1000 : Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}

// --- The tests ---------------------------------------------------------------------------

const FIXED_SEED = process.env.FUZZ_SEED === undefined ? null : Number(process.env.FUZZ_SEED);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const STEPS = 60;
/** Seeds beyond the default ones: `FUZZ_FROM=100000 FUZZ_RUNS=5000` explores further. */
const FROM = Number(process.env.FUZZ_FROM ?? 0);

describe('client fuzz (seeded, model-based)', () => {
  it(`${FIXED_SEED === null ? RUNS : 1} random runs of ${STEPS} steps keep every invariant`, async () => {
    const seeds = FIXED_SEED === null ? Array.from({ length: RUNS }, (_, i) => 0x5eed0000 + (FROM + i) * 7919) : [FIXED_SEED];
    for (const seed of seeds) {
      vi.clearAllTimers();
      vi.setSystemTime(1_800_000_000_000);
      await fuzzRun(seed, STEPS);
    }
  }, Math.max(15_000, RUNS * 20));
});

// --- Bugs the fuzz found, reduced ------------------------------------------------------------

const serverError = () => jsonResponse(500, { error: { code: 'internal', message: 'oops' } });

describe('client fuzz findings', () => {
  it('refresh() from a listener of a failed fetch: the failure\'s retry timer outlives the refresh and fetches again after it succeeded', async () => {
    // Found by the fuzz (fixed; the fuzz now also refreshes from a failure's notification).
    // docs/client.md, pollInterval: "`0` fetches once; a failed fetch is still retried with backoff until one succeeds",
    // and Backoff: "A success resets the sequence and the next poll is `pollInterval` later." The docs also make
    // client calls from a listener legitimate ("Safe from inside a listener or `onError`").
    // client.ts `dispatch` notifies the listeners before it runs the transition's effects. The listener's refresh()
    // starts a fetch (clearing `poll-due`); then the outer `fetch-failed` effects run and arm `poll-due` for the
    // retry. That stale timer survives the refresh's success and fetches once more 1 s later (with any pollInterval:
    // a poll at 1 s instead of pollInterval after the success).
    let calls = 0;
    const h = harness(() => (++calls === 1 ? serverError() : jsonResponse(200, snapshotAt(1), { etag: '"snapshot-1"' })), { pollInterval: 0 });
    let refreshed = false;
    h.client.subscribe(({ status }) => {
      if (status.error && !refreshed) {
        refreshed = true;
        void h.client.refresh();
      }
    });
    await vi.advanceTimersByTimeAsync(0);
    // The failed fetch, then the listener's refresh, which succeeded.
    expect(h.requests).toHaveLength(2);
    expect(h.client.getStatus()).toMatchObject({ status: 'ready', version: 1, error: null });
    await vi.advanceTimersByTimeAsync(120_000);
    // Before the fix: a third request at 1000 ms, the 500's retry.
    expect(h.requests).toHaveLength(2);
    await h.client.close();
  });

  /** A streaming client, connected, holding v1, whose page visibility the test switches. */
  async function hiddenStreamingClient() {
    const visibility = switchableSource(true);
    const sockets = createFakeSockets();
    let reply: () => HttpResult = () => jsonResponse(200, snapshotAt(1), { etag: '"snapshot-1"' });
    const h = harness(() => reply(), {
      streamUrl: 'https://stream.flags.test',
      streamTransport: defineStreamTransport(sockets.transport),
      pollInterval: 30_000,
      visibilitySource: visibility.visibility,
    });
    await h.client.ready();
    sockets.last.open();
    sockets.last.receive(connectedFrame(600_000));
    return { ...h, visibility, sockets, setReply: (next: () => HttpResult) => (reply = next) };
  }

  it('control: while the page is hidden, a snapshot.updated still fetches (the stream stays open)', async () => {
    const h = await hiddenStreamingClient();
    h.visibility.set(false);
    await vi.advanceTimersByTimeAsync(120_000);
    h.setReply(() => jsonResponse(200, snapshotAt(2), { etag: '"snapshot-2"' }));
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.requests).toHaveLength(2);
    expect(h.client.get('v')).toBe(2);
    await h.client.close();
  });

  it('hidden after a 429 Retry-After: stream notices are ignored for as long as the page stays hidden, long after the wait', async () => {
    // Found by the fuzz (fixed; the fuzz now asserts the notice check while hidden after a Retry-After too).
    // docs/client.md, Backoff: "A `Retry-After` on 429 or 503 lengthens the delay, and stream notices wait for it
    // too"; pauseWhenHidden: "No polling while the page is hidden [...] The stream stays open." A notice waits for
    // the Retry-After, not for the page to become visible: the control above fetches on a hidden notice.
    // transition.ts: `fetch-failed` sets `fetch: 'held'`; going hidden (`activity`) clears the `poll-due` retry
    // timer, which was the only way out of `held` besides refresh() or becoming active again; `stream-notify`
    // only fetches when `fetch === 'idle'`. So one 429 (here Retry-After: 5) mutes the stream until the page is
    // visible again, however long that is.
    const h = await hiddenStreamingClient();
    h.setReply(() => jsonResponse(429, { error: { code: 'busy', message: 'later' } }, { 'retry-after': '5' }));
    await h.client.refresh();
    expect(h.client.getStatus().error).toMatchObject({ status: 429 });
    h.visibility.set(false);
    await vi.advanceTimersByTimeAsync(120_000);
    h.setReply(() => jsonResponse(200, snapshotAt(2), { etag: '"snapshot-2"' }));
    h.sockets.last.receive({ type: 'snapshot.updated', environmentId: 'production', version: 2 });
    await vi.advanceTimersByTimeAsync(0);
    // Before the fix: still 2 requests and v1 — the notice was dropped (only `wanted` was raised).
    expect(h.requests).toHaveLength(3);
    expect(h.client.get('v')).toBe(2);
    await h.client.close();
  });
});

/*
 * Observation, not asserted (see `outcomeWhilePaused` above): a fetch started while active that ends
 * after the page went hidden or the device offline still arms its next poll or retry. The timer fires
 * while paused and fetches nothing (the `poll-due` guard), so no request breaks "No polling while the
 * page is hidden"; it is only a wasted wake-up of a paused page. A fix would skip arming `poll-due` in
 * `snapshot-received` / `fetch-failed` while `activity !== 'active'` (the return to active fetches anyway).
 */
