import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { flagViolation } from '../../reference-server/validation/flag';
import { evaluateFlag } from '../../src/evaluation/index';
import type { Flag, FlagSnapshot } from '../../src/snapshot/snapshot-types';
import { admin, call, DEMO, useServers } from '../reference-server/helpers';

/** scripts/large-environment.mjs, which `npm run bench:large` publishes (plain JavaScript: typed here). */
interface LargeEnvironment {
  largeSnapshot(flagCount: number, environmentId?: string): FlagSnapshot;
  largeFlag(index: number): Flag;
  largeFlagKey(index: number): string;
}
const scripts = new URL('../../scripts/', import.meta.url);
const { largeSnapshot, largeFlag, largeFlagKey } = (await import(/* @vite-ignore */ new URL('large-environment.mjs', scripts).href)) as LargeEnvironment;

const servers = useServers();

describe('the large environment of npm run bench:large', () => {
  it('is deterministic: the same bytes on every call, and flag i the same whatever the flag count', () => {
    expect(JSON.stringify(largeSnapshot(300))).toBe(JSON.stringify(largeSnapshot(300)));
    const small = Object.entries(largeSnapshot(300).flags);
    const large = Object.entries(largeSnapshot(1000).flags);
    expect(large).toHaveLength(1000);
    expect(large.slice(0, 300)).toEqual(small);
    expect(large.map(([key]) => key)).toEqual(Array.from({ length: 1000 }, (_, i) => largeFlagKey(i)));
    expect(large[999]![1]).toEqual(largeFlag(999));
  });

  it('is a snapshot of schema 1 for the environment asked for, production by default', () => {
    expect(largeSnapshot(3)).toMatchObject({ schemaVersion: 1, version: 1, environmentId: 'production' });
    expect(largeSnapshot(3, 'staging').environmentId).toBe('staging');
  });

  it("has the issue's shape: five rules per flag, each on a country `in` condition, two or more of them 50/50 rollouts", () => {
    for (const flag of Object.values(largeSnapshot(1000).flags)) {
      expect(flag.rules).toHaveLength(5);
      for (const rule of flag.rules) {
        const country = rule.conditions.find((condition) => condition.kind === 'attribute' && condition.attribute === 'country');
        expect(country).toMatchObject({ op: 'in', values: expect.any(Array) });
        const values = (country as { values: string[] }).values;
        expect(new Set(values).size).toBe(values.length);
        expect(values.length).toBeGreaterThanOrEqual(3);
      }
      const fiftyFifty = flag.rules.filter((rule) => 'rollout' in rule.serve && rule.serve.rollout.length === 2 && rule.serve.rollout.every((slice) => slice.weight === 50000));
      expect(fiftyFifty.length).toBeGreaterThanOrEqual(2);
    }
  });

  it("weighs about what the issue's environment weighs: 10.4 MiB of JSON for 10,000 flags", () => {
    const mebibytes = Buffer.byteLength(JSON.stringify(largeSnapshot(10_000))) / 2 ** 20;
    expect(mebibytes).toBeGreaterThan(10);
    expect(mebibytes).toBeLessThan(11);
  });

  it("passes the server's schema-1 check of a flag, and every flag evaluates", () => {
    const flags = Object.values(largeSnapshot(2000).flags) as Flag[];
    expect(flags.map((flag) => flagViolation(flag)).filter(Boolean)).toEqual([]);
    const served = flags.map((flag) => evaluateFlag(flag, { userId: 'user-1', attributes: { country: 'FR' } }, 'user-1'));
    expect(served.filter((evaluation) => evaluation.kind !== 'served')).toEqual([]);
    // A French user meets every outcome somewhere: a 50/50 wave, a fixed market, control for the rest, a flag turned off.
    const reasons = new Set(served.map((evaluation) => (evaluation.kind === 'served' ? evaluation.reason : evaluation.kind)));
    expect(reasons).toEqual(new Set(['SPLIT', 'TARGETING_MATCH', 'DEFAULT', 'DISABLED']));
  });

  it('is accepted whole by the admin API and served back to a client key; one flag of it PATCHes', async () => {
    const server = await servers.start();
    const snapshot = largeSnapshot(1000);
    const put = await admin(server, 'PUT', '/environments/production/snapshot', snapshot);
    expect(put.status).toBe(200);
    const served = (await (await call(server, '/sdk/v1/snapshot', { key: DEMO.prodClientKey })).json()) as FlagSnapshot;
    const clientSide = Object.entries(snapshot.flags).filter(([, flag]) => flag.clientSide);
    expect(clientSide.length).toBeGreaterThan(0);
    expect(served.flags).toEqual(Object.fromEntries(clientSide));
    const patch = await admin(server, 'PATCH', `/environments/production/flags/${largeFlagKey(500)}`, { on: false });
    expect(patch.status).toBe(200);
    expect(((await patch.json()) as { flag: Flag }).flag).toEqual({ ...snapshot.flags[largeFlagKey(500)], on: false });
  });
});

describe('npm run bench:large', () => {
  it.each(['bench-large.mjs', 'large-client.mjs', 'large-server.mjs', 'large-environment.mjs', 'redis-kit.mjs', 'sdk-request-probe.mjs'])(
    'scripts/%s parses (node --check)',
    (file) => {
      expect(() => execFileSync(process.execPath, ['--check', fileURLToPath(new URL(file, scripts))], { stdio: 'pipe' })).not.toThrow();
    },
  );

  it('is a script of package.json, run with --expose-gc for its heap figures', async () => {
    const { default: pkg } = (await import('../../package.json')) as { default: { scripts: Record<string, string> } };
    expect(pkg.scripts['bench:large']).toBe('node --expose-gc scripts/bench-large.mjs');
  });
});
