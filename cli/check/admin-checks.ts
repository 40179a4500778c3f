import type { Check, CheckContext } from './check-types';
import { describeResponse, expectErrorBody, expectHeader, expectStatus, fail, isRecord } from './expect';
import { jsonOf } from './http-probe';
import { CLOSE_CODE, MIN_VERSION_HEADER, REVOKE_CLOSE_WITHIN_MS, SDK_ROUTES, snapshotEtag } from './rules';
import { expectConnected, expectPong, withStream } from './stream-checks';

/** The throwaway key the admin checks create, use and revoke: the user's own key is never revoked. */
interface AdminSession {
  key?: string;
  revoked: boolean;
}

const adminRequest = (context: CheckContext, method: string, path: string, body?: unknown) =>
  context.request(path, {
    method,
    headers: { authorization: `Bearer ${context.target.adminToken}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });

const environmentOf = async (context: CheckContext) => context.target.environment ?? (await context.snapshot()).environmentId;

function keyOf(session: AdminSession): string {
  if (session.key === undefined) fail('no throwaway key: admin.key failed');
  return session.key;
}

/** GET /sdk/v1/snapshot with `key`: the body of a 200, or a failure. */
async function readSnapshot(context: CheckContext, key: string, headers: Record<string, string> = {}) {
  const response = await context.request(SDK_ROUTES.snapshot, { headers: { authorization: `Bearer ${key}`, ...headers } });
  expectStatus(response, 200, 'the snapshot with the throwaway key');
  const body = jsonOf(response);
  if (!isRecord(body) || typeof body.version !== 'number') fail(`the snapshot with the throwaway key: ${describeResponse(response)}`);
  return { body, version: body.version, response };
}

/** Publishes the environment's snapshot again, flags unchanged, as version current + 1. */
async function republish(context: CheckContext, key: string, environmentId: string): Promise<number> {
  const { body, version } = await readSnapshot(context, key);
  const response = await adminRequest(context, 'PUT', `/admin/v1/environments/${encodeURIComponent(environmentId)}/snapshot`, { schemaVersion: body.schemaVersion, flags: body.flags });
  expectStatus(response, 200, 'the publish');
  const published = jsonOf(response) as { version?: unknown } | undefined;
  if (published?.version !== version + 1) fail(`the publish answered ${describeResponse(response)}, not version ${version + 1}`);
  return version + 1;
}

/** After a publish of `version`: the refetch that asks for it gets it, and the old ETag no longer matches. */
async function expectRefetch(context: CheckContext, key: string, version: number): Promise<void> {
  const { response, version: served } = await readSnapshot(context, key, { [MIN_VERSION_HEADER]: String(version) });
  if (served !== version) fail(`the refetch at ${MIN_VERSION_HEADER}: ${version} served version ${served}`);
  expectHeader(response, 'etag', snapshotEtag(version), 'the refetch');
  const old = await context.request(SDK_ROUTES.snapshot, { headers: { authorization: `Bearer ${key}`, 'if-none-match': snapshotEtag(version - 1) } });
  expectStatus(old, 200, `If-None-Match with the previous ETag`);
}

export function adminChecks(): Check[] {
  const session: AdminSession = { revoked: false };
  const revoke = (context: CheckContext) => adminRequest(context, 'DELETE', `/admin/v1/keys/${encodeURIComponent(keyOf(session))}`);
  return [
    {
      id: 'admin.key',
      section: '§7',
      title: 'the admin API creates a throwaway server key, which reads the environment’s snapshot',
      async run(context) {
        const environmentId = await environmentOf(context);
        context.onFinish(async () => {
          if (session.key !== undefined && !session.revoked) await revoke(context);
        });
        const response = await adminRequest(context, 'POST', `/admin/v1/environments/${encodeURIComponent(environmentId)}/keys`, { kind: 'server' });
        expectStatus(response, 201, 'the new key');
        const created = jsonOf(response);
        // Kept before the answer is judged, so that the key is revoked at the end whatever it said.
        if (isRecord(created) && typeof created.key === 'string') session.key = created.key;
        if (!isRecord(created) || typeof created.key !== 'string' || created.kind !== 'server' || created.environmentId !== environmentId) {
          fail(`expected { key, kind: "server", environmentId: "${environmentId}" }, got ${describeResponse(response)}`);
        }
        const { body } = await readSnapshot(context, created.key);
        if (body.environmentId !== environmentId) fail(`the new key reads environment ${JSON.stringify(body.environmentId)}`);
      },
    },
    {
      id: 'admin.publish',
      section: '§3, §6.2, §7',
      title: 'a publish (the same flags again) is announced by snapshot.updated, and the refetch at that version serves it',
      async run(context) {
        const key = keyOf(session);
        const environmentId = await environmentOf(context);
        if (context.target.streamUrl === undefined) return expectRefetch(context, key, await republish(context, key, environmentId));
        await withStream(context, async (probe) => {
          await expectConnected(probe);
          const { version } = await readSnapshot(context, key);
          probe.send({ type: 'subscribe', environmentId, lastKnownVersion: version });
          await expectPong(probe, 'subscribe at the current version');
          const published = await republish(context, key, environmentId);
          const frame = await probe.next('snapshot.updated');
          if (frame.type !== 'snapshot.updated' || frame.version !== published) fail(`expected snapshot.updated at ${published}, got ${JSON.stringify(frame)}`);
          await expectRefetch(context, key, published);
        }, { key });
      },
    },
    {
      id: 'admin.revoke',
      section: '§1, §6.4, §7',
      title: 'revoking the throwaway key: 204, its stream closed with 4403 within a second, then 401 and 4401',
      async run(context) {
        const key = keyOf(session);
        const revokeNow = async () => {
          const response = await revoke(context);
          session.revoked = response.status === 204;
          expectStatus(response, 204, 'the revocation');
        };
        if (context.target.streamUrl === undefined) await revokeNow();
        else {
          await withStream(context, async (probe) => {
            await expectConnected(probe);
            await revokeNow();
            const closed = await probe.closedWithin('the close with 4403', REVOKE_CLOSE_WITHIN_MS);
            if (closed.code !== CLOSE_CODE.revoked) fail(`the revoked key's stream closed with ${closed.code}, not ${CLOSE_CODE.revoked}`);
          }, { key });
          await withStream(context, async (probe) => {
            const closed = await probe.closedWithin('the close with 4401');
            if (closed.code !== CLOSE_CODE.badKey) fail(`a new stream with the revoked key closed with ${closed.code}, not ${CLOSE_CODE.badKey}`);
          }, { key });
        }
        const response = await context.request(SDK_ROUTES.snapshot, { headers: { authorization: `Bearer ${key}` } });
        expectErrorBody(response, 401, 'unauthorized', 'the snapshot with the revoked key');
      },
    },
  ];
}
