// Publishing scales with the change: a one-flag edit shares every other flag (object and bytes)
// with the version before, admin bodies may be gzip, and the admin body limit holds a large
// environment (docs/reference-server.md, "Large environments").
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { largeFlag, largeFlagKey, largeSnapshot } from '../../../scripts/large-environment.mjs';
import { DEFAULT_LIMITS } from '../../../reference-server/http/limits';
import type { ReferenceServer } from '../../../reference-server/index';
import { admin, call, DEMO, errorOf, useServers } from '../helpers';
import { rawFlagMembers } from './raw-flags';

const servers = useServers();
const FLAGS = 300;

const body = async (server: ReferenceServer, key: string = DEMO.prodServerKey) => (await call(server, '/sdk/v1/snapshot', { key })).text();
const stored = (server: ReferenceServer, version: number) => server.stores.environments.get('production')!.kv.snapshots.get(version)!;

async function largeServer() {
  const server = await servers.start();
  const response = await call(server, '/admin/v1/environments/production/snapshot', { key: server.adminToken, method: 'PUT', body: largeSnapshot(FLAGS) });
  expect(await response.json()).toEqual({ environmentId: 'production', version: 2 });
  return server;
}

/** Every flag of `before` other than `changed` has the same bytes in `after`, and the same order. */
function expectOthersUnchanged(before: string, after: string, changed: string) {
  const old = rawFlagMembers(before);
  const next = rawFlagMembers(after);
  old.delete(changed);
  const kept = new Map([...next].filter(([key]) => key !== changed));
  expect([...kept.keys()]).toEqual([...old.keys()]);
  for (const [key, raw] of old) expect(kept.get(key), key).toBe(raw);
}

describe('a one-flag change in a large environment', () => {
  it.each([
    ['PATCH', largeFlagKey(17), { on: false }],
    ['PUT', largeFlagKey(17), largeFlag(3)],
    ['PUT', 'a-new-flag', largeFlag(4)],
    ['DELETE', largeFlagKey(17), undefined],
  ])('%s %s leaves every other flag byte for byte as it was, for both key kinds', async (method, key, flagBody) => {
    const server = await largeServer();
    const before = { server: await body(server), client: await body(server, DEMO.prodClientKey) };
    const response = await admin(server, method, `/environments/production/flags/${key}`, flagBody);
    expect(response.status).toBe(200);
    expect((await response.json()).version).toBe(3);
    const after = { server: await body(server), client: await body(server, DEMO.prodClientKey) };
    expectOthersUnchanged(before.server, after.server, key);
    expectOthersUnchanged(before.client, after.client, key);
    const changed = rawFlagMembers(after.server).get(key);
    if (method === 'DELETE') expect(changed).toBeUndefined();
    else expect(JSON.parse(changed!)).toEqual(method === 'PATCH' ? { ...largeFlag(17), on: false } : flagBody);
  });

  it('shares every other flag object with the version before, frozen, instead of copying the snapshot', async () => {
    const server = await largeServer();
    await admin(server, 'PATCH', `/environments/production/flags/${largeFlagKey(5)}`, { on: false });
    const [v2, v3] = [stored(server, 2), stored(server, 3)];
    expect(v3.flags).not.toBe(v2.flags);
    expect(v3.flags[largeFlagKey(5)]).not.toBe(v2.flags[largeFlagKey(5)]);
    for (const key of Object.keys(v2.flags)) if (key !== largeFlagKey(5)) expect(v3.flags[key], key).toBe(v2.flags[key]);
    // Served once: its JSON is remembered, and a remembered flag cannot change under it.
    await body(server);
    expect(Object.isFrozen(v3.flags[largeFlagKey(6)])).toBe(true);
    expect(Object.isFrozen(v3.flags[largeFlagKey(6)]!.rules[0]!.conditions[0])).toBe(true);
  });

  it('a whole publish shares each flag whose JSON did not change with the version before', async () => {
    const server = await largeServer();
    const next = largeSnapshot(FLAGS);
    next.flags[largeFlagKey(8)] = { ...next.flags[largeFlagKey(8)]!, on: !next.flags[largeFlagKey(8)]!.on };
    delete next.flags[largeFlagKey(9)];
    expect((await call(server, '/admin/v1/environments/production/snapshot', { key: server.adminToken, method: 'PUT', body: next })).status).toBe(200);
    const [v2, v3] = [stored(server, 2), stored(server, 3)];
    expect(v3.flags[largeFlagKey(8)]).not.toBe(v2.flags[largeFlagKey(8)]);
    expect(v3.flags[largeFlagKey(8)]).toEqual(next.flags[largeFlagKey(8)]);
    expect(Object.hasOwn(v3.flags, largeFlagKey(9))).toBe(false);
    for (const key of Object.keys(v3.flags)) if (key !== largeFlagKey(8)) expect(v3.flags[key], key).toBe(v2.flags[key]);
  });

  it('refuses a flag that breaks its own references as before, and publishes nothing', async () => {
    const server = await largeServer();
    const response = await admin(server, 'PATCH', `/environments/production/flags/${largeFlagKey(9)}`, { offVariation: 3 });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toEqual({
      code: 'invalid_request',
      path: 'offVariation',
      message: 'offVariation must be a variation index below 2 (the flag has 2 variation(s)), not 3',
    });
    const rollout = await admin(server, 'PATCH', `/environments/production/flags/${largeFlagKey(9)}`, { fallthrough: { rollout: [{ variation: 7, weight: 100000 }] } });
    expect(await errorOf(rollout)).toMatchObject({ path: 'fallthrough.rollout[0].variation' });
    expect(server.stores.environments.get('production')!.kv.current).toBe(2);
  });
});

describe('admin bodies: the limit and gzip', () => {
  const snapshotPath = '/admin/v1/environments/production/snapshot';
  const put = (server: ReferenceServer, content: Uint8Array | string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${snapshotPath}`, { method: 'PUT', body: typeof content === 'string' ? content : new Uint8Array(content), headers: { authorization: `Bearer ${server.adminToken}`, ...headers } });

  it('takes a 10,000-flag snapshot whole (10.4 MiB), under the default adminBodyBytes of 32 MiB', async () => {
    const server = await servers.start();
    const text = JSON.stringify(largeSnapshot(10_000));
    expect(text.length).toBeGreaterThan(10 * 1024 * 1024);
    expect(DEFAULT_LIMITS.adminBodyBytes).toBe(32 * 1024 * 1024);
    expect(await (await put(server, text)).json()).toEqual({ environmentId: 'production', version: 2 });
    expect(Object.keys(stored(server, 2).flags)).toHaveLength(10_000);
  });

  it('accepts a gzip body, whole snapshots and one flag alike', async () => {
    const server = await servers.start();
    const snapshot = largeSnapshot(FLAGS);
    const response = await put(server, gzipSync(JSON.stringify(snapshot)), { 'content-encoding': 'gzip' });
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2 });
    expect(JSON.parse(await body(server)).flags).toEqual(snapshot.flags);
    const patch = await fetch(`${server.baseUrl}/admin/v1/environments/production/flags/${largeFlagKey(1)}`, {
      method: 'PATCH',
      body: new Uint8Array(gzipSync('{"on":false}')),
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-encoding': 'GZIP' },
    });
    expect((await patch.json()).flag.on).toBe(false);
  });

  it('answers a body that is not gzip with a 400, and another coding with a 415; nothing is published', async () => {
    const server = await servers.start();
    const corrupt = await put(server, '{"schemaVersion":1,"flags":{}}', { 'content-encoding': 'gzip' });
    expect(corrupt.status).toBe(400);
    expect(await errorOf(corrupt)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^the body is not valid gzip: /) });
    const truncated = gzipSync(JSON.stringify(largeSnapshot(20)));
    const cut = await put(server, truncated.subarray(0, truncated.length - 20), { 'content-encoding': 'gzip' });
    expect((await errorOf(cut)).code).toBe('invalid_request');
    const brotli = await put(server, '{}', { 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);
    expect(await errorOf(brotli)).toMatchObject({ code: 'unsupported_media_type', message: 'Content-Encoding "br" is not accepted: send gzip, or no encoding' });
    expect(server.stores.environments.get('production')!.kv.current).toBe(1);
  });

  it('answers a gzip bomb with a 413 once it inflates past the limit, without inflating the rest', async () => {
    const server = await servers.start();
    // 64 MiB of JSON in about 64 KiB: twice the default limit.
    const bomb = gzipSync(`{"schemaVersion":1,"flags":{},"pad":"${'x'.repeat(64 * 1024 * 1024)}"}`);
    expect(bomb.length).toBeLessThan(DEFAULT_LIMITS.adminBodyBytes / 100);
    const response = await put(server, bomb, { 'content-encoding': 'gzip' });
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toEqual({ code: 'payload_too_large', message: `the body exceeds the limit of ${DEFAULT_LIMITS.adminBodyBytes} bytes once decompressed` });
    expect(server.stores.environments.get('production')!.kv.current).toBe(1);
  });

  it('holds adminBodyBytes to the body as sent and to the body decompressed', async () => {
    const server = await servers.start({ limits: { adminBodyBytes: 4096 } });
    const text = JSON.stringify(largeSnapshot(10));
    expect(text.length).toBeGreaterThan(4096);
    expect((await errorOf(await put(server, text))).code).toBe('payload_too_large');
    const small = gzipSync(text);
    expect(small.length).toBeLessThan(4096);
    expect(await errorOf(await put(server, small, { 'content-encoding': 'gzip' }))).toMatchObject({ code: 'payload_too_large', message: 'the body exceeds the limit of 4096 bytes once decompressed' });
    expect((await put(server, gzipSync(JSON.stringify(largeSnapshot(2))), { 'content-encoding': 'gzip' })).status).toBe(200);
  });
});
