import type { Check, CheckContext } from './check-types';
import { describeResponse, expectErrorBody, expectHeader, expectStatus, fail, isRecord, listsToken } from './expect';
import { jsonOf } from './http-probe';
import { MIN_VERSION_HEADER, SDK_ROUTES, snapshotEtag } from './rules';

const bearer = (context: CheckContext) => ({ authorization: `Bearer ${context.target.key}` });

/** GET /sdk/v1/snapshot with the key and `headers`; `query` is appended to the path. */
const getSnapshot = (context: CheckContext, headers: Record<string, string> = {}, query = '') =>
  context.request(`${SDK_ROUTES.snapshot}${query}`, { headers: { ...bearer(context), ...headers } });

/** The version of a 200 answer's body, or a failure naming what came back. */
function versionOf(response: Awaited<ReturnType<typeof getSnapshot>>, what: string): number {
  expectStatus(response, 200, what);
  const body = jsonOf(response);
  if (!isRecord(body) || typeof body.version !== 'number') fail(`${what}: no snapshot version in ${describeResponse(response)}`);
  return body.version;
}

export const snapshotChecks: Check[] = [
  {
    id: 'snapshot.200',
    section: '§2, §3',
    title: 'GET /sdk/v1/snapshot answers 200 with a schema-1 snapshot as JSON',
    async run(context) {
      const response = await getSnapshot(context);
      expectStatus(response, 200, 'the snapshot');
      expectHeader(response, 'content-type', /^application\/json\b/i, 'the snapshot');
      const body = jsonOf(response);
      const valid =
        isRecord(body) &&
        body.schemaVersion === 1 &&
        Number.isSafeInteger(body.version) &&
        (body.version as number) >= 0 &&
        typeof body.environmentId === 'string' &&
        isRecord(body.flags);
      if (!valid) fail(`not a schema-1 snapshot (schemaVersion 1, integer version ≥ 0, string environmentId, object flags): ${describeResponse(response)}`);
    },
  },
  {
    id: 'snapshot.etag',
    section: '§3',
    title: 'its ETag is "snapshot-<version>" of the version in the body',
    async run(context) {
      const response = await getSnapshot(context);
      const version = versionOf(response, 'the snapshot');
      expectHeader(response, 'etag', snapshotEtag(version), `the snapshot of version ${version}`);
    },
  },
  {
    id: 'snapshot.cache-control',
    section: '§3',
    title: 'its Cache-Control is no-cache',
    async run(context) {
      expectHeader(await getSnapshot(context), 'cache-control', 'no-cache', 'the snapshot');
    },
  },
  {
    id: 'snapshot.vary',
    section: '§3',
    title: 'its Vary lists Authorization',
    async run(context) {
      const response = await getSnapshot(context);
      if (!listsToken(response, 'vary', 'Authorization')) fail(`Vary ${JSON.stringify(response.headers.vary ?? null)}`);
    },
  },
  {
    id: 'snapshot.304',
    section: '§3',
    title: 'If-None-Match with its ETag answers 304, no body, the ETag and Cache-Control: no-cache',
    async run(context) {
      const { version } = await context.snapshot();
      const etag = snapshotEtag(version);
      const response = await getSnapshot(context, { 'if-none-match': etag });
      expectStatus(response, 304, `If-None-Match: ${etag}`);
      if (response.text !== '') fail(`a 304 with a body: ${describeResponse(response)}`);
      expectHeader(response, 'etag', etag, 'the 304');
      expectHeader(response, 'cache-control', 'no-cache', 'the 304');
    },
  },
  {
    id: 'snapshot.if-none-match-list',
    section: '§3',
    title: 'If-None-Match compares weakly over a list, * matches, another ETag gets 200',
    async run(context) {
      const { version } = await context.snapshot();
      const cases: Array<[string, number]> = [
        [`"other", W/${snapshotEtag(version)}`, 304],
        ['*', 304],
        [snapshotEtag(version + 1), 200],
      ];
      for (const [value, status] of cases) expectStatus(await getSnapshot(context, { 'if-none-match': value }), status, `If-None-Match: ${value}`);
    },
  },
  {
    id: 'snapshot.min-version-ahead',
    section: '§3',
    title: 'a minimum version above the current one still answers 200 with the current snapshot',
    async run(context) {
      const { version } = await context.snapshot();
      const ahead = String(version + 1);
      const answers = [
        [await getSnapshot(context, { [MIN_VERSION_HEADER]: ahead }), `${MIN_VERSION_HEADER}: ${ahead}`],
        [await getSnapshot(context, {}, `?minVersion=${ahead}`), `?minVersion=${ahead}`],
      ] as const;
      for (const [response, what] of answers) {
        const served = versionOf(response, what);
        if (served !== version) fail(`${what}: version ${served}, not the current ${version}`);
      }
    },
  },
  {
    id: 'snapshot.min-version-invalid',
    section: '§3, §5',
    title: 'a minimum version that is not one integer from 0 to 2^53 − 1 is a 400 invalid_request naming it',
    async run(context) {
      const header = MIN_VERSION_HEADER;
      expectErrorBody(await getSnapshot(context, { [header]: 'latest' }), 400, 'invalid_request', `${header}: latest`, header);
      expectErrorBody(await getSnapshot(context, { [header]: '9007199254740992' }), 400, 'invalid_request', `${header}: 2^53`, header);
      expectErrorBody(await getSnapshot(context, {}, '?minVersion=-1'), 400, 'invalid_request', '?minVersion=-1', 'minVersion');
    },
  },
];
