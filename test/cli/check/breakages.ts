/** One way to break a data plane per row, and the checks that must then fail: the table of check-breakages.test.ts. */
import { DEMO } from '../../helpers/reference-server';
import type { Breakage, ProxiedAnswer, ProxiedRequest } from './breaking-proxy';

export interface BreakageCase {
  name: string;
  breakage: Breakage;
  /** The failed check ids, in the order they run. */
  fails: string[];
  /** What each failure must say came back, when it is more than "something". */
  got?: RegExp;
}

const path = (request: ProxiedRequest) => request.url.split('?')[0];
const isSnapshot200 = (request: ProxiedRequest, answer: ProxiedAnswer) => path(request) === '/sdk/v1/snapshot' && answer.status === 200;

/** The answer when `when` holds, else `answer` unchanged. */
const answerWhen =
  (when: (request: ProxiedRequest, answer: ProxiedAnswer) => boolean, change: (answer: ProxiedAnswer) => ProxiedAnswer) =>
  (request: ProxiedRequest, answer: ProxiedAnswer) =>
    when(request, answer) ? change(answer) : answer;

const withHeader = (name: string, value: string | undefined) => (answer: ProxiedAnswer) => {
  const headers = { ...answer.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...answer, headers };
};

const editBody = (edit: (body: { error: Record<string, unknown> }) => void) => (answer: ProxiedAnswer) => {
  const body = JSON.parse(answer.body) as { error: Record<string, unknown> };
  edit(body);
  return { ...answer, body: JSON.stringify(body) };
};

const notFound: ProxiedAnswer = {
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { code: 'not_found', message: 'not caught up' } }),
};

/** The minimum version a snapshot request asks for, header first, else the query; NaN without one. */
function askedVersion(request: ProxiedRequest): number {
  const header = request.headers['flagplane-min-version'];
  return Number(header ?? new URL(request.url, 'http://proxy').searchParams.get('minVersion') ?? NaN);
}

const servedVersion = (answer: ProxiedAnswer) => (JSON.parse(answer.body) as { version: number }).version;

/** A client frame as JSON; the checker's non-JSON frame as an empty one. */
function clientFrame(text: string): { type?: string; lastKnownVersion?: unknown } {
  try {
    return JSON.parse(text) as { type?: string; lastKnownVersion?: unknown };
  } catch {
    return {};
  }
}

/** The version of a subscribe frame, or null for any other frame. */
function subscribedAt(text: string): number | null {
  const frame = clientFrame(text);
  return frame.type === 'subscribe' && typeof frame.lastKnownVersion === 'number' ? frame.lastKnownVersion : null;
}

const hasError = (code: string) => (_request: ProxiedRequest, answer: ProxiedAnswer) => answer.body.includes(`"code":"${code}"`);

export const BREAKAGES: BreakageCase[] = [
  { name: 'the snapshot sent as text/plain', fails: ['snapshot.200'], breakage: { answer: answerWhen(isSnapshot200, withHeader('content-type', 'text/plain')) } },
  {
    name: 'an ETag of another shape',
    fails: ['snapshot.etag', 'admin.publish'],
    breakage: { answer: answerWhen(isSnapshot200, (answer) => withHeader('etag', `"v${String(answer.headers.etag).replace(/\D/g, '')}"`)(answer)) },
  },
  { name: 'the snapshot cached for a minute', fails: ['snapshot.cache-control'], breakage: { answer: answerWhen(isSnapshot200, withHeader('cache-control', 'max-age=60')) } },
  { name: 'no Vary', fails: ['snapshot.vary'], breakage: { answer: answerWhen(isSnapshot200, withHeader('vary', undefined)) } },
  {
    name: 'a single If-None-Match ignored',
    fails: ['snapshot.304'],
    breakage: { request: (request) => void (/^"snapshot-\d+"$/.test(String(request.headers['if-none-match'])) && delete request.headers['if-none-match']) },
  },
  {
    name: 'If-None-Match lists and * ignored',
    fails: ['snapshot.if-none-match-list'],
    breakage: { request: (request) => void (/,|^\*$/.test(String(request.headers['if-none-match'] ?? '')) && delete request.headers['if-none-match']) },
  },
  {
    name: 'a minimum version above the current one refused with 404',
    fails: ['snapshot.min-version-ahead'],
    breakage: { answer: answerWhen((request, answer) => isSnapshot200(request, answer) && askedVersion(request) > servedVersion(answer), () => notFound) },
  },
  {
    name: 'a minimum version that is not a number ignored',
    fails: ['snapshot.min-version-invalid'],
    breakage: { request: (request) => void (/^\d+$/.test(String(request.headers['flagplane-min-version'] ?? '0')) || delete request.headers['flagplane-min-version']) },
  },
  { name: 'a 401 without WWW-Authenticate', fails: ['auth.401'], breakage: { answer: answerWhen((_, answer) => answer.status === 401, withHeader('www-authenticate', undefined)) } },
  {
    name: 'the identity route open to any key',
    fails: ['auth.401-every-route'],
    breakage: { request: (request) => void (path(request) === '/sdk/v1/identity' && (request.headers.authorization = `Bearer ${DEMO.prodClientKey}`)) },
  },
  { name: 'events accepted with 200', fails: ['events.202'], breakage: { answer: answerWhen((_, answer) => answer.status === 202, (answer) => ({ ...answer, status: 200 })) } },
  { name: 'invalid_batch without its path', fails: ['events.invalid-batch'], breakage: { answer: answerWhen(hasError('invalid_batch'), editBody((body) => delete body.error.path)) } },
  { name: 'invalid_json under another code', fails: ['events.invalid-json'], breakage: { answer: answerWhen(hasError('invalid_json'), editBody((body) => (body.error.code = 'bad_json'))) } },
  {
    name: 'any Content-Type taken as JSON',
    fails: ['events.415'],
    breakage: { request: (request) => void (request.headers['content-type'] === 'text/plain' && (request.headers['content-type'] = 'application/json')) },
  },
  {
    name: 'traits cached for a minute',
    fails: ['identity.200'],
    breakage: { answer: answerWhen((request, answer) => path(request) === '/sdk/v1/identity' && answer.status === 200, withHeader('cache-control', 'max-age=60')) },
  },
  {
    name: 'a missing userId without its path',
    fails: ['identity.missing-user'],
    breakage: { answer: answerWhen((request, answer) => path(request) === '/sdk/v1/identity' && answer.status === 400, editBody((body) => delete body.error.path)) },
  },
  { name: 'preflights held ten minutes', fails: ['cors.preflight'], breakage: { answer: answerWhen((request) => request.method === 'OPTIONS', withHeader('access-control-max-age', '600')) } },
  {
    name: 'ETag not exposed',
    fails: ['cors.response-headers'],
    breakage: { answer: answerWhen((request) => request.method !== 'OPTIONS', withHeader('access-control-expose-headers', undefined)) },
  },
  {
    name: 'an unknown route answered in plain text',
    fails: ['errors.404'],
    breakage: { answer: answerWhen((_, answer) => answer.status === 404, () => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not Found' })) },
  },
  { name: 'a 405 without Allow', fails: ['errors.405'], breakage: { answer: answerWhen((_, answer) => answer.status === 405, withHeader('allow', undefined)) } },
  {
    name: 'connected without heartbeatMs',
    fails: ['stream.connected'],
    breakage: { fromServer: (frame) => (frame.type === 'connected' ? { ...frame, heartbeatMs: undefined } : frame) },
  },
  {
    name: 'the key subprotocol echoed',
    fails: ['stream.key-subprotocol'],
    breakage: { select: (offered, selected) => offered.find((entry) => entry.startsWith('flagplane.key.')) ?? selected },
  },
  {
    name: 'pongs with another ts',
    fails: ['stream.ping', 'stream.subscribe-current', 'admin.publish'],
    breakage: { fromServer: (frame) => (frame.type === 'pong' ? { ...frame, ts: Number(frame.ts) + 1 } : frame) },
  },
  {
    name: 'a subscribe at the current version answered by snapshot.updated',
    fails: ['stream.subscribe-current', 'admin.publish'],
    breakage: {
      fromClient(text, state) {
        const frame = clientFrame(text);
        if (frame.type === 'subscribe' && frame.lastKnownVersion === state.connectedVersion) {
          state.toClient({ type: 'snapshot.updated', environmentId: state.environmentId, version: state.connectedVersion });
        }
        return text;
      },
    },
  },
  {
    name: 'a subscribe behind the current version never answered',
    fails: ['stream.subscribe-behind'],
    breakage: { fromClient: (text, state) => (subscribedAt(text) !== null && subscribedAt(text)! < state.connectedVersion! ? null : text) },
  },
  {
    name: 'every resync with reason unknown-version',
    fails: ['stream.subscribe-resync'],
    breakage: { fromServer: (frame) => (frame.type === 'snapshot.resync' ? { ...frame, reason: 'unknown-version' } : frame) },
  },
  { name: 'a bad key closed with 1008', fails: ['stream.bad-key', 'admin.revoke'], breakage: { closeCode: (code) => (code === 4401 ? 1008 : code) } },
  { name: 'no subprotocol taken as flagplane.v1', fails: ['stream.no-subprotocol'], breakage: { offer: (offered) => (offered.length === 0 ? ['flagplane.v1'] : offered) } },
  { name: 'frames that are not JSON ignored', fails: ['stream.bad-frame'], breakage: { fromClient: (text) => (text.startsWith('{') ? text : null) } },
  {
    name: 'a new key of another kind',
    fails: ['admin.key'],
    breakage: { answer: answerWhen((request, answer) => request.method === 'POST' && answer.status === 201, (answer) => ({ ...answer, body: answer.body.replace('"server"', '"client"') })) },
  },
  {
    name: 'no snapshot.updated for a publish',
    fails: ['admin.publish'],
    breakage: { fromServer: (frame, state) => (frame.type === 'snapshot.updated' && Number(frame.version) > state.connectedVersion! ? null : frame) },
  },
  { name: 'a revoked key closed with 1000', fails: ['admin.revoke'], breakage: { closeCode: (code) => (code === 4403 ? 1000 : code) } },
  {
    name: 'the identity route hangs',
    fails: ['auth.401-every-route', 'identity.200', 'identity.missing-user', 'cors.preflight'],
    got: /no answer to (GET|OPTIONS) \/sdk\/v1\/identity\S* within 1000 ms/,
    breakage: { answer: (request, answer) => (path(request) === '/sdk/v1/identity' ? 'hang' : answer) },
  },
];
