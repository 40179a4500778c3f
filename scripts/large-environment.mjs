/**
 * A large environment, as issue 28 measured it: `flagCount` flags of five rules each, the
 * country `in` rules and 50/50 rollouts of an experiment program (about 1.1 KiB of JSON per
 * flag: 10,000 flags are 10.9 MiB). Deterministic: the same count gives the same bytes,
 * so runs compare. Shared by the benches (bench-publish.mjs, bench:large) and tests.
 */

const COUNTRIES = ['US', 'CA', 'GB', 'DE', 'FR', 'NL', 'ES', 'IT', 'SE', 'PL', 'BR', 'MX', 'JP', 'KR', 'IN', 'AU'];

/** The key of flag `i`: `exp-00042-checkout`, sorted as numbered. */
export function largeFlagKey(i) {
  return `exp-${String(i).padStart(5, '0')}-${['checkout', 'search', 'onboarding', 'pricing'][i % 4]}`;
}

/** Four countries starting at `offset` (wrapping). */
function countries(offset) {
  return Array.from({ length: 4 }, (_, j) => COUNTRIES[(offset + j) % COUNTRIES.length]);
}

/** One experiment flag: three variations, five rules (country `in` ones, two of them 50/50 rollouts). */
export function largeFlag(i) {
  const key = largeFlagKey(i);
  const half = [{ variation: 1, weight: 50000 }, { variation: 2, weight: 50000 }];
  const rule = (n, serve) => ({
    id: `rule-${n}`,
    conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: countries(i + n * 3) }],
    serve,
  });
  return {
    on: i % 10 !== 0,
    variations: ['control', 'treatment-a', 'treatment-b'],
    offVariation: 0,
    rules: [
      rule(1, { rollout: half }),
      rule(2, { variation: 1 }),
      rule(3, { rollout: half }),
      rule(4, { variation: 2 }),
      {
        id: 'rule-5',
        conditions: [
          { kind: 'attribute', attribute: 'country', op: 'in', values: countries(i + 7) },
          { kind: 'attribute', attribute: 'plan', op: 'in', values: ['pro', 'enterprise'] },
        ],
        serve: { rollout: half },
      },
    ],
    fallthrough: { variation: 0 },
    salt: key,
    clientSide: i % 2 === 0,
  };
}

/**
 * A schema-1 snapshot of `flagCount` flags (version 1, for `environmentId`), as the admin API
 * takes it whole (PUT /admin/v1/environments/{id}/snapshot) or as a config's snapshot.
 */
export function largeSnapshot(flagCount, environmentId = 'production') {
  const flags = {};
  for (let i = 0; i < flagCount; i += 1) flags[largeFlagKey(i)] = largeFlag(i);
  return { schemaVersion: 1, version: 1, environmentId, flags };
}
