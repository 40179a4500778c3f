// Issue 27, part 7: the demo's well-known admin token and keys never go where others reach the
// server (off loopback, or on Redis or Postgres) unless asked for; the admin token is compared in
// constant time; the config's trustProxy and allowedHosts are checked.
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { DemoCredentialsError, demoConfig, parseServerConfig, startReferenceServer } from '../../reference-server/index';
import type { ServerConfig } from '../../reference-server/index';
import { describeWithBinaries } from '../helpers/engine-binaries';
import { admin, call, DEMO, useServers } from './helpers';
import { freshPrefix, redisNeed, useRedisProcess } from './stores/engines-fixture';

const servers = useServers();

const DEMO_KEYS = [DEMO.prodServerKey, DEMO.prodClientKey, DEMO.stagingServerKey, DEMO.stagingClientKey];

/** A config of one's own: its own key, no admin token (a random one per start). */
const ownConfig = (): ServerConfig => {
  const [production] = demoConfig().environments;
  return { environments: [{ ...production!, keys: [{ key: 'svc_sdk_client_own_key_0001', kind: 'client' }] }] };
};

const refusal = (promise: Promise<unknown>) => promise.then(() => expect.fail('the server started'), (error: unknown) => error);

describe('off loopback', () => {
  it('refuses to start with the implicit demo config, naming every demo credential and how to fix it', async () => {
    const error = await refusal(startReferenceServer({ host: '0.0.0.0' }));
    expect(error).toBeInstanceOf(DemoCredentialsError);
    expect(error).toMatchObject({ code: 'demo_credentials', exposure: { kind: 'host', host: '0.0.0.0' }, credentials: ['admin token dev-admin-token', ...DEMO_KEYS] });
    const message = (error as Error).message;
    expect(message).toMatch(/^refusing to start listening on 0\.0\.0\.0 \(not loopback\) with the demo credentials anyone can read in reference-server\/demo\.json \(admin token dev-admin-token, svc_sdk_server_demo_prod_0001, /);
    for (const fix of ['--config', '--admin-token', 'FLAGPLANE_ADMIN_TOKEN', '--allow-demo-credentials', 'allowDemoCredentials']) expect(message).toContain(fix);
  });

  it('refuses the demo keys under an admin token of one’s own, and the demo token in a config of one’s own', async () => {
    const ownToken = await refusal(startReferenceServer({ host: '::', adminToken: 'an-own-admin-token' }));
    expect(ownToken).toMatchObject({ credentials: DEMO_KEYS });
    const copied = await refusal(startReferenceServer({ host: '0.0.0.0', config: { ...ownConfig(), adminToken: DEMO.adminToken } }));
    expect(copied).toMatchObject({ credentials: ['admin token dev-admin-token'] });
  });

  it('starts with credentials of one’s own, or with the demo ones when asked to', async () => {
    const own = await servers.start({ host: '0.0.0.0', config: ownConfig() });
    expect(own.adminToken).not.toBe(DEMO.adminToken);
    expect((await call(own, '/sdk/v1/snapshot', { key: 'svc_sdk_client_own_key_0001' })).status).toBe(200);
    const demo = await servers.start({ host: '0.0.0.0', allowDemoCredentials: true });
    expect(demo.adminToken).toBe(DEMO.adminToken);
    // Loopback, the default, needs no opt-in.
    expect((await servers.start()).adminToken).toBe(DEMO.adminToken);
  });
});

describeWithBinaries('on Redis', [redisNeed], () => {
  const redis = useRedisProcess();
  const clientCount = async () => {
    const probe = new Redis(redis.url);
    try {
      return ((await probe.client('LIST')) as string).trim().split('\n').length - 1;
    } finally {
      probe.disconnect();
    }
  };

  it('refuses the demo credentials on loopback too, and closes its Redis connections', async () => {
    const before = await clientCount();
    const error = await refusal(startReferenceServer({ redis: redis.url, redisPrefix: freshPrefix() }));
    expect(error).toMatchObject({ exposure: { kind: 'engines', engines: ['Redis'] }, credentials: ['admin token dev-admin-token', ...DEMO_KEYS] });
    expect(await clientCount()).toBe(before);
  });

  it('refuses demo keys a Redis still holds from an earlier start, though the config is one’s own', async () => {
    const redisPrefix = freshPrefix();
    const seeded = await servers.start({ redis: redis.url, redisPrefix, allowDemoCredentials: true });
    await seeded.close();
    const error = await refusal(startReferenceServer({ redis: redis.url, redisPrefix, config: ownConfig() }));
    expect(error).toMatchObject({ credentials: DEMO_KEYS });
    // Revoked, they are no credentials any more.
    const again = await servers.start({ redis: redis.url, redisPrefix, allowDemoCredentials: true });
    for (const key of DEMO_KEYS) await again.revokeKey(key);
    await again.close();
    const own = await servers.start({ redis: redis.url, redisPrefix, config: ownConfig() });
    expect(own.engines.control).toBe('redis');
  });
});

describe('the admin token', () => {
  it('is refused when wrong, of the same length or another, and accepted when right', async () => {
    const server = await servers.start({ adminToken: 'right-token-0001' });
    const withToken = (token: string) => call(server, '/admin/v1/environments', { key: token }).then((response) => response.status);
    expect(await withToken('right-token-0002')).toBe(401);
    expect(await withToken('right-token-000')).toBe(401);
    expect(await withToken('right-token-00010')).toBe(401);
    expect(await withToken(DEMO.adminToken)).toBe(401);
    expect(await withToken('right-token-0001')).toBe(200);
    expect((await admin(server, 'GET', '/environments')).status).toBe(200);
  });

  it('given as an option, wins over the config’s and must have 8 characters', async () => {
    const server = await servers.start({ config: { ...ownConfig(), adminToken: 'config-token' }, adminToken: 'option-token' });
    expect(server.adminToken).toBe('option-token');
    await expect(startReferenceServer({ adminToken: 'short' })).rejects.toThrow(new RangeError('adminToken must be at least 8 characters'));
  });
});

describe('the config’s trustProxy and allowedHosts', () => {
  it('are kept when valid and a ConfigError naming the member otherwise', () => {
    const config = parseServerConfig({ ...demoConfig(), trustProxy: ['10.0.0.0/8', '::1'], allowedHosts: ['.example.com'] });
    expect(config).toMatchObject({ trustProxy: ['10.0.0.0/8', '::1'], allowedHosts: ['.example.com'] });
    expect(() => parseServerConfig({ ...demoConfig(), trustProxy: ['10.0.0.0/40'] })).toThrow(/^trustProxy trustProxy entries are .*"10\.0\.0\.0\/40"/);
    expect(() => parseServerConfig({ ...demoConfig(), trustProxy: '10.0.0.1' })).toThrow(/^trustProxy must be an array of strings/);
    expect(() => parseServerConfig({ ...demoConfig(), allowedHosts: ['flags.test:80'] })).toThrow(/^allowedHosts allowedHosts entries are host names/);
  });
});
