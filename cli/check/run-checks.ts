import { adminChecks } from './admin-checks';
import { authChecks } from './auth-checks';
import type { Check, CheckContext, CheckResult, CheckTarget, HeldSnapshot } from './check-types';
import { corsChecks } from './cors-checks';
import { eventChecks } from './event-checks';
import { describeResponse, fail, isRecord } from './expect';
import { jsonOf, probe } from './http-probe';
import { identityChecks } from './identity-checks';
import { routeErrorChecks } from './route-error-checks';
import { SDK_ROUTES } from './rules';
import { snapshotChecks } from './snapshot-checks';
import { streamChecks } from './stream-checks';

/** The checks `target` asks for, in the order they run: the stream's with a stream URL, the admin API's with a token. */
export function checksFor(target: CheckTarget): Check[] {
  return [
    ...snapshotChecks,
    ...authChecks,
    ...eventChecks,
    ...identityChecks,
    ...corsChecks,
    ...routeErrorChecks,
    ...(target.streamUrl === undefined ? [] : streamChecks),
    ...(target.adminToken === undefined ? [] : adminChecks()),
  ];
}

async function readHeldSnapshot(context: CheckContext): Promise<HeldSnapshot> {
  const response = await context.request(SDK_ROUTES.snapshot, { headers: { authorization: `Bearer ${context.target.key}` } });
  const body = jsonOf(response);
  if (response.status !== 200 || !isRecord(body) || !Number.isSafeInteger(body.version) || typeof body.environmentId !== 'string') {
    fail(`the key's snapshot cannot be read: ${describeResponse(response)}`);
  }
  return { version: body.version as number, environmentId: body.environmentId, body };
}

function createContext(target: CheckTarget, cleanups: Array<() => Promise<void>>): CheckContext {
  const prefix = target.baseUrl.pathname.replace(/\/+$/, '');
  let held: Promise<HeldSnapshot> | undefined;
  const context: CheckContext = {
    target,
    request: (path, init = {}) => probe(new URL(prefix + path, target.baseUrl), init, target.timeoutMs),
    snapshot: () => (held ??= readHeldSnapshot(context)),
    onFinish: (cleanup) => cleanups.push(cleanup),
  };
  return context;
}

/** Runs every check one after the other; `onResult` hears each as it ends. Never throws. */
export async function runChecks(target: CheckTarget, onResult: (result: CheckResult) => void = () => undefined): Promise<CheckResult[]> {
  const cleanups: Array<() => Promise<void>> = [];
  const context = createContext(target, cleanups);
  const results: CheckResult[] = [];
  for (const check of checksFor(target)) {
    const result: CheckResult = { id: check.id, section: check.section, title: check.title, ok: true };
    try {
      await check.run(context);
    } catch (error) {
      result.ok = false;
      result.got = error instanceof Error ? error.message : String(error);
    }
    results.push(result);
    onResult(result);
  }
  for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  return results;
}
