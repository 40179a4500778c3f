import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import demo from '../../../reference-server/demo.json';
import type { ReferenceServer } from '../../../reference-server/index';
import { admin, call, DEMO, errorOf, NOW, useServers } from '../helpers';

const servers = useServers();
const demoFlags = demo.environments[0]!.snapshot.flags;

const served = async (server: ReferenceServer, key: string = DEMO.prodServerKey) => (await call(server, '/sdk/v1/snapshot', { key })).json();
const version = (server: ReferenceServer, environmentId = 'production') => server.stores.environments.get(environmentId)!.kv.current;

/** A valid boolean flag serving `true`. */
const onFlag = { on: true, variations: [false, true], offVariation: 0, rules: [], fallthrough: { variation: 1 }, salt: 'x', clientSide: true };

describe('one flag through the admin API', () => {
  it('PUT creates a flag as version + 1, notifies the streams and keeps every other flag', async () => {
    const server = await servers.start();
    const stream = await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    const response = await admin(server, 'PUT', '/environments/production/flags/brand-new', onFlag);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2, key: 'brand-new', flag: onFlag });
    expect(await stream.next('snapshot.updated')).toMatchObject({ environmentId: 'production', version: 2 });
    const body = await served(server);
    expect(body.version).toBe(2);
    expect(body.flags).toEqual({ ...demoFlags, 'brand-new': onFlag });
    expect(version(server, 'staging')).toBe(1);
  });

  it('PUT replaces a flag whole', async () => {
    const server = await servers.start();
    await admin(server, 'PUT', '/environments/production/flags/new-checkout', onFlag);
    expect((await served(server)).flags['new-checkout']).toEqual(onFlag);
  });

  it('PATCH merges top-level members into the flag', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PATCH', '/environments/production/flags/new-checkout', { on: false, fallthrough: { variation: 1 } });
    expect(response.status).toBe(200);
    const expected = { ...demoFlags['new-checkout'], on: false, fallthrough: { variation: 1 } };
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2, key: 'new-checkout', flag: expected });
    expect((await served(server)).flags['new-checkout']).toEqual(expected);
  });

  it('DELETE removes the flag as a new version', async () => {
    const server = await servers.start();
    const response = await admin(server, 'DELETE', '/environments/production/flags/maintenance-mode');
    expect(await response.json()).toEqual({ environmentId: 'production', version: 2, key: 'maintenance-mode' });
    const { 'maintenance-mode': _removed, ...rest } = demoFlags;
    expect((await served(server)).flags).toEqual(rest);
  });

  it.each([
    ['PATCH', { on: false }],
    ['DELETE', undefined],
  ])('%s of a flag that does not exist is a 404 and publishes nothing', async (method, body) => {
    const server = await servers.start();
    const response = await admin(server, method, '/environments/production/flags/nope', body);
    expect(response.status).toBe(404);
    expect(await errorOf(response)).toMatchObject({ code: 'not_found', message: 'environment "production" has no flag "nope"' });
    expect(version(server)).toBe(1);
  });

  it('a flag change in an unknown environment is a 404', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', '/environments/nowhere/flags/x', onFlag);
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toBe('unknown environment "nowhere"');
  });

  const rule = (condition: object) => ({ id: 'r', conditions: [condition], serve: { variation: 1 } });
  const isRule = (values: unknown) => rule({ kind: 'attribute', attribute: 'customer', op: 'is', values });
  const keys = (...names: unknown[]) => ({ variations: ['a', 'b', 'c'], offVariation: 0, fallthrough: { variation: 0 }, rules: [], variationKeys: names });
  it.each([
    ['an unknown operator', { rules: [rule({ kind: 'attribute', attribute: 'a', op: 'regex', values: ['x'] })] }, 'rules[0].conditions[0].op', /must be one of "in", .*not "regex"/],
    ['values on an exists condition', { rules: [rule({ kind: 'attribute', attribute: 'a', op: 'exists', values: ['x'] })] }, 'rules[0].conditions[0].values', /must not be given here/],
    ['a rollout that does not sum to 100000', { fallthrough: { rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 40000 }] } }, 'fallthrough.rollout', /weights must sum to 100000, not 90000/],
    ['a variation out of range', { offVariation: 2 }, 'offVariation', /below 2 .*not 2/],
    ['a rule serving a variation out of range', { rules: [{ id: 'r', conditions: [], serve: { variation: 5 } }] }, 'rules[0].serve.variation', /below 2/],
    ['two rules with one id', { rules: [rule({ kind: 'segment', segmentIds: ['a'] }), rule({ kind: 'segment', segmentIds: ['b'] })] }, 'rules[1].id', /unique/],
    ['a member schema 1 does not have', { colour: 'red' }, 'colour', /is not a member/],
    ['on that is not a boolean', { on: 'yes' }, 'on', /must be boolean, not string/],
    ['a serve with both forms', { fallthrough: { variation: 0, rollout: [] } }, 'fallthrough.rollout', /not a member|at least/],
    // The optional members of issue 24: variationKeys, metadata, the is operator.
    ['a duplicate variation key', keys('control', 'b', 'control'), 'variationKeys[2]', /must be unique: "control" is also variationKeys\[0\]/],
    ['an empty variation key', keys('a', '', 'c'), 'variationKeys[1]', /must have at least 1 character/],
    ['a variation key that is not a string', keys('a', 'b', 3), 'variationKeys[2]', /must be string, not integer/],
    ['a variation key over 128 characters', keys('a', 'k'.repeat(129), 'c'), 'variationKeys[1]', /must have at most 128 characters, not 129/],
    ['fewer variation keys than variations', keys('a', 'b'), 'variationKeys', /one entry per variation: the flag has 3 variation\(s\), not 2/],
    ['more variation keys than variations', { variationKeys: ['off', 'on', 'maybe'] }, 'variationKeys', /the flag has 2 variation\(s\), not 3/],
    ['variationKeys that is not an array', { variationKeys: 'off,on' }, 'variationKeys', /must be array, not string/],
    ['metadata that is not an object', { metadata: ['owner'] }, 'metadata', /must be object, not array/],
    ['a nested metadata value', { metadata: { owner: { team: 'web' } } }, 'metadata.owner', /must be string or number or boolean, not object/],
    ['a null metadata value', { metadata: { owner: null } }, 'metadata.owner', /not null/],
    ['a metadata string over 1024 characters', { metadata: { note: 'n'.repeat(1025) } }, 'metadata.note', /at most 1024 characters, not 1025/],
    ['an empty metadata name', { metadata: { '': 'x' } }, 'metadata', /member name "" that must have at least 1 character/],
    ['a metadata name over 128 characters', { metadata: { ['m'.repeat(129)]: 1 } }, 'metadata', /member name "m{129}" that must have at most 128 characters/],
    ['more than 64 metadata entries', { metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`m${i}`, i])) }, 'metadata', /at most 64 members, not 65/],
    ['is with a string', { rules: [isRule(['true'])] }, 'rules[0].conditions[0].values[0]', /must be boolean, not string/],
    ['is with a number', { rules: [isRule([true, 0])] }, 'rules[0].conditions[0].values[1]', /must be boolean, not integer/],
    ['is with no values', { rules: [isRule([])] }, 'rules[0].conditions[0].values', /at least 1 item/],
    ['is without values', { rules: [isRule(undefined)] }, 'rules[0].conditions[0].values', /is required/],
    ['a boolean in the values of in', { rules: [rule({ kind: 'attribute', attribute: 'customer', op: 'in', values: [true] })] }, 'rules[0].conditions[0].values[0]', /must be string or number, not boolean/],
  ])('refuses %s with a 400 naming the member, and publishes nothing', async (_name, members, path, message) => {
    const server = await servers.start();
    const response = await admin(server, 'PATCH', '/environments/production/flags/new-checkout', members);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'invalid_request', path });
    expect(error.message.startsWith(`${path} `)).toBe(true);
    expect(error.message).toMatch(message);
    expect(version(server)).toBe(1);
    expect((await served(server)).flags['new-checkout']).toEqual(demoFlags['new-checkout']);
  });

  it.each([
    ['an array', [1]],
    ['a string', 'on'],
  ])('refuses a flag body that is %s', async (_name, body) => {
    const server = await servers.start();
    const put = await admin(server, 'PUT', '/environments/production/flags/x', body);
    expect(put.status).toBe(400);
    expect((await errorOf(put)).code).toBe('invalid_request');
    const patch = await admin(server, 'PATCH', '/environments/production/flags/new-checkout', body);
    expect(patch.status).toBe(400);
    expect(version(server)).toBe(1);
  });

  it('refuses a flag key over 256 characters', async () => {
    const server = await servers.start();
    const response = await admin(server, 'PUT', `/environments/production/flags/${'k'.repeat(257)}`, onFlag);
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({ path: 'key' });
  });

  it('takes the flags of a snapshot of another schema as given', async () => {
    const server = await servers.start();
    await admin(server, 'PUT', '/environments/staging/snapshot', { schemaVersion: 2, flags: {} });
    const response = await admin(server, 'PUT', '/environments/staging/flags/x', { kind: 'new' });
    expect(response.status).toBe(200);
    expect((await served(server, DEMO.stagingServerKey)).flags).toEqual({ x: { kind: 'new' } });
  });

  it('concurrent changes each publish exactly one version', async () => {
    const server = await servers.start();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => admin(server, 'PATCH', '/environments/production/flags/search-page-size', { salt: `s${i}` })),
    );
    const versions = await Promise.all(responses.map(async (response) => (await response.json()).version as number));
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(version(server)).toBe(21);
  });
});

describe('admin listings for the console', () => {
  it('GET /admin/v1/environments lists each environment with its versions, open streams and current snapshot', async () => {
    const server = await servers.start();
    await servers.subscribe(server, DEMO.prodClientKey, 'production', 1);
    await admin(server, 'PATCH', '/environments/production/flags/new-checkout', { on: false });
    const { environments } = await (await admin(server, 'GET', '/environments')).json();
    expect(environments.map((e: { id: string }) => e.id)).toEqual(['production', 'staging']);
    expect(environments[0]).toMatchObject({ id: 'production', kind: 'production', version: 2, versions: [1, 2], streams: 1 });
    expect(environments[0].snapshot.flags['new-checkout'].on).toBe(false);
    expect(environments[1]).toMatchObject({ id: 'staging', kind: 'staging', version: 1, versions: [1], streams: 0 });
  });

  it('GET /admin/v1/keys lists every key with its kind, environment and whether it is revoked', async () => {
    const server = await servers.start();
    await admin(server, 'DELETE', `/keys/${DEMO.stagingClientKey}`);
    const { keys } = await (await admin(server, 'GET', '/keys')).json();
    expect(keys).toContainEqual({ key: DEMO.prodClientKey, kind: 'client', environmentId: 'production', revoked: false });
    expect(keys).toContainEqual({ key: DEMO.stagingClientKey, kind: 'client', environmentId: 'staging', revoked: true });
  });

  it('?limit= gives the newest entries of the event logs and the identify queue', async () => {
    const server = await servers.start();
    const events = Array.from({ length: 5 }, (_, i) => ({ type: 'error', message: `e${i}` }));
    const identifies = Array.from({ length: 3 }, (_, i) => ({ type: 'identify', userId: `u${i}`, traits: {} }));
    const posted = await call(server, '/sdk/v1/events', { method: 'POST', key: DEMO.prodClientKey, body: { sentAt: NOW(), events: [...events, ...identifies] } });
    expect(posted.status).toBe(202);
    const { events: newest } = await (await admin(server, 'GET', '/diagnostics?limit=2')).json();
    expect(newest.map((event: { message: string }) => event.message)).toEqual(['e3', 'e4']);
    expect((await (await admin(server, 'GET', '/diagnostics')).json()).events).toHaveLength(5);
    expect((await (await admin(server, 'GET', '/diagnostics?limit=0')).json()).events).toEqual([]);
    const { rows } = await (await admin(server, 'GET', '/environments/production/identify-queue?limit=1')).json();
    expect(rows.map((row: { userId: string }) => row.userId)).toEqual(['u2']);
    const bad = await admin(server, 'GET', '/analytics?limit=-1');
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ path: 'limit' });
  });
});

describe('the console routes', () => {
  const consoleDirs: string[] = [];
  const consoleDir = () => (consoleDirs.push(mkdtempSync(join(tmpdir(), 'flagplane-console-'))), consoleDirs.at(-1)!);
  afterEach(() => consoleDirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('serve the page at / and the script from consoleDir, with no token needed', async () => {
    const dir = consoleDir();
    writeFileSync(join(dir, 'console.js'), 'console.log("console");');
    const server = await servers.start({ consoleDir: dir });
    const page = await call(server, '/', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script type="module" src="/console/console.js"></script>');
    const script = await call(server, '/console/console.js', { key: null });
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log("console");');
  });

  it('say how to build a missing script, and are absent without consoleDir', async () => {
    const dir = consoleDir();
    const server = await servers.start({ consoleDir: dir });
    const script = await call(server, '/console/console.js', { key: null });
    expect(script.status).toBe(404);
    expect((await errorOf(script)).message).toMatch(/run npm run build/);
    const plain = await servers.start();
    expect((await call(plain, '/', { key: null })).status).toBe(404);
  });
});
