// What the evaluation benchmarks share (scripts/bench-eval.mjs, scripts/bench.mjs): loading
// the SDK, and the flags and contexts they evaluate.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundles an entry of the repository in memory and imports it through a data: URL. */
export async function load(entry) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  return import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString('base64')}`);
}

/** A flag with five rules mixing every family of operators, then a rollout fallthrough. */
export function makeFlag(i) {
  return {
    on: true,
    variations: ['control', 'treatment', 'holdout'],
    offVariation: 0,
    rules: [
      { id: 'staff', conditions: [{ kind: 'attribute', attribute: 'email', op: 'endsWith', values: ['@example.com', '@example.org'] }], serve: { variation: 1 } },
      { id: 'new-app', conditions: [{ kind: 'attribute', attribute: 'appVersion', op: 'semverGt', values: [`3.${i % 10}.0`] }], serve: { variation: 1 } },
      { id: 'beta', conditions: [{ kind: 'segment', segmentIds: ['beta-testers', `cohort-${i}`] }], serve: { rollout: [{ variation: 1, weight: 50000 }, { variation: 2, weight: 50000 }] } },
      {
        id: 'eu-recent',
        conditions: [
          { kind: 'attribute', attribute: 'country', op: 'in', values: ['FR', 'DE', 'ES', 'IT', 'NL'] },
          { kind: 'attribute', attribute: 'signupDate', op: 'after', values: ['2024-01-01T00:00:00Z'] },
        ],
        serve: { variation: 2 },
      },
      {
        id: 'heavy-users',
        conditions: [
          { kind: 'attribute', attribute: 'sessions', op: 'gte', values: [100] },
          { kind: 'attribute', attribute: 'plan', op: 'exists', negate: true },
        ],
        serve: { variation: 1 },
      },
    ],
    fallthrough: { rollout: [{ variation: 0, weight: 90000 }, { variation: 1, weight: 10000 }] },
    salt: `flag-${i}`,
    clientSide: true,
  };
}

// Most contexts match no rule, so all five rules run before the fallthrough rollout.
export function makeContext(i, unique = false) {
  return {
    userId: `user-${i}`,
    attributes: {
      email: `user-${i}@customer.test`,
      appVersion: unique ? `2.${i}.${i % 7}` : `2.${i % 50}.${i % 7}`,
      country: i % 3 ? 'US' : 'FR',
      signupDate: unique ? new Date(1.6e12 + i * 61_000).toISOString() : '2023-06-15T10:00:00Z',
      sessions: i % 120,
      plan: 'free',
    },
    segmentIds: ['newsletter'],
  };
}
