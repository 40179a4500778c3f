import { describe, expect, it } from 'vitest';
import demo from '../../reference-server/demo.json';
import { ConfigError, demoConfig, parseServerConfig } from '../../reference-server/index';

const environment = () => structuredClone(demo.environments[1]!) as Record<string, unknown>;

describe('parseServerConfig', () => {
  it('accepts the demo config: two environments of both kinds, a server and a client key each', () => {
    const config = demoConfig();
    expect(config.adminToken).toBe('dev-admin-token');
    expect(config.environments.map((env) => [env.id, env.kind])).toEqual([
      ['production', 'production'],
      ['staging', 'staging'],
    ]);
    for (const env of config.environments) {
      expect(env.keys.map((key) => key.kind).sort()).toEqual(['client', 'server']);
      const flags = Object.values(env.snapshot.flags);
      expect(flags.length).toBeGreaterThanOrEqual(5);
      expect(flags.length).toBeLessThanOrEqual(8);
      expect(flags.some((flag) => !flag.clientSide)).toBe(true);
      expect(flags.some((flag) => !flag.on)).toBe(true);
    }
    expect(config.environments[0]!.traits?.['user-42']).toBeDefined();
  });

  it('takes limits, checked: an unknown one or a bad value is a ConfigError at limits', () => {
    expect(parseServerConfig({ ...demo, limits: { eventsPerKind: 50 } }).limits).toEqual({ eventsPerKind: 50 });
    for (const limits of [{ eventsPerKind: 0 }, { nope: 1 }, 'many']) {
      expect(() => parseServerConfig({ ...demo, limits })).toThrow(ConfigError);
      try {
        parseServerConfig({ ...demo, limits });
      } catch (error) {
        expect((error as ConfigError).path).toBe('limits');
      }
    }
  });

  it('returns copies: changing one does not change the next', () => {
    const first = demoConfig();
    first.environments[0]!.snapshot.flags = {};
    expect(Object.keys(demoConfig().environments[0]!.snapshot.flags).length).toBeGreaterThan(0);
  });

  it('defaults the snapshot version to 1 and sets environmentId to the environment id', () => {
    const env = environment();
    env.snapshot = { schemaVersion: 1, environmentId: 'something-else', flags: {} };
    const config = parseServerConfig({ environments: [env] });
    expect(config.environments[0]!.snapshot).toMatchObject({ version: 1, environmentId: 'staging' });
    expect(config.adminToken).toBeUndefined();
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a non-object', [], ''],
    ['no environments', { environments: [] }, 'environments'],
    ['a short admin token', { adminToken: 'x', environments: [environment()] }, 'adminToken'],
    ['an id with a slash', { environments: [{ ...environment(), id: 'a/b' }] }, 'environments[0].id'],
    ['an unknown kind', { environments: [{ ...environment(), kind: 'qa' }] }, 'environments[0].kind'],
    ['a duplicate id', { environments: [environment(), environment()] }, 'environments[1].id'],
    ['keys not an array', { environments: [{ ...environment(), keys: {} }] }, 'environments[0].keys'],
    ['a short key', { environments: [{ ...environment(), keys: [{ key: 'svc_sdk_client_short', kind: 'client' }] }] }, 'environments[0].keys[0].key'],
    ['a key whose prefix disagrees with its kind', { environments: [{ ...environment(), keys: [{ key: 'svc_sdk_client_long_enough', kind: 'server' }] }] }, 'environments[0].keys[0].key'],
    ['an unknown key kind', { environments: [{ ...environment(), keys: [{ key: 'svc_sdk_client_long_enough', kind: 'browser' }] }] }, 'environments[0].keys[0].kind'],
    [
      'a key declared in two environments',
      { environments: [environment(), { ...environment(), id: 'staging-2' }] },
      'environments[1].keys[0].key',
    ],
    ['a snapshot without flags', { environments: [{ ...environment(), snapshot: { schemaVersion: 1 } }] }, 'environments[0].snapshot.flags'],
    ['a negative version', { environments: [{ ...environment(), snapshot: { schemaVersion: 1, version: -1, flags: {} } }] }, 'environments[0].snapshot.version'],
    ['traits that are not objects', { environments: [{ ...environment(), traits: { u: 1 } }] }, 'environments[0].traits.u'],
  ];
  it.each(invalid)('rejects %s, naming %s', (_name, value, path) => {
    let error: unknown;
    try {
      parseServerConfig(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).path).toBe(path);
    expect((error as ConfigError).message.startsWith(path)).toBe(true);
  });
});
