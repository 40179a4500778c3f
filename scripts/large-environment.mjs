// A large environment, as a team running an experiment program accumulates one: every flag an
// experiment of five rules, each a country `in` condition: two test waves on a 50/50 rollout,
// then markets already launched (treatment), a holdout (control) and staff markets (treatment);
// everyone else gets control. About 1.07 KiB of JSON per flag (10.4 MiB for 10,000 flags).
// Deterministic: flag i is the same whatever the flag count, so largeSnapshot(1000)'s flags are
// the first 1,000 of largeSnapshot(10000).
// Used by `npm run bench:large` (scripts/bench-large.mjs) and its test.

/** ISO 3166 codes the markets are drawn from. */
const COUNTRIES = [
  'FR', 'DE', 'ES', 'IT', 'NL', 'BE', 'AT', 'PT', 'IE', 'SE', 'DK', 'FI', 'PL', 'CZ', 'GR', 'GB', 'CH', 'NO',
  'US', 'CA', 'MX', 'BR', 'AR', 'CL', 'CO', 'PE', 'JP', 'KR', 'AU', 'NZ', 'SG', 'IN', 'ID', 'TH', 'VN', 'PH',
  'MY', 'TR', 'IL', 'AE', 'SA', 'ZA', 'NG', 'EG', 'KE', 'MA', 'RO', 'HU',
];
const TEAMS = ['growth', 'checkout', 'search', 'onboarding', 'payments', 'mobile', 'retention', 'pricing'];
const SURFACES = ['banner', 'flow', 'ranking', 'copy', 'layout', 'reminder', 'paywall', 'cta'];
const FIFTY_FIFTY = () => ({ rollout: [{ variation: 0, weight: 50000 }, { variation: 1, weight: 50000 }] });
/** Each flag's rules: id and what it serves. */
const RULES = [
  ['wave-1', FIFTY_FIFTY],
  ['wave-2', FIFTY_FIFTY],
  ['launched', () => ({ variation: 1 })],
  ['holdout', () => ({ variation: 0 })],
  ['staff-markets', () => ({ variation: 1 })],
];

/** mulberry32: a small seeded generator in [0, 1). */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct countries, in the order drawn. */
function market(random, count) {
  const pool = [...COUNTRIES];
  const picked = [];
  for (let i = 0; i < count; i++) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
  return picked;
}

/** The key of flag `i`: team, surface and a serial number, unique per index. */
export function largeFlagKey(i) {
  return `${TEAMS[i % TEAMS.length]}.${SURFACES[Math.floor(i / TEAMS.length) % SURFACES.length]}-exp-${String(i).padStart(5, '0')}`;
}

/** Flag `i` of the program: five market rules, control for everyone else. */
export function largeFlag(i) {
  const random = seeded(0x5eed + i * 7919);
  const key = largeFlagKey(i);
  const rules = RULES.map(([id, serve]) => ({
    id,
    conditions: [{ kind: 'attribute', attribute: 'country', op: 'in', values: market(random, 3 + Math.floor(random() * 7)) }],
    serve: serve(),
  }));
  return {
    on: random() < 0.9,
    variations: ['control', 'treatment'],
    offVariation: 0,
    rules,
    fallthrough: { variation: 0 },
    salt: key,
    clientSide: true,
    metadata: { owner: TEAMS[i % TEAMS.length] },
  };
}

/**
 * A schema-1 snapshot of `flagCount` experiment flags (version 1, for `environmentId`), as the
 * admin API's whole-snapshot PUT takes it (the server publishes it as its next version) or as a
 * config's snapshot.
 */
export function largeSnapshot(flagCount, environmentId = 'production') {
  const flags = {};
  for (let i = 0; i < flagCount; i++) flags[largeFlagKey(i)] = largeFlag(i);
  return { schemaVersion: 1, version: 1, environmentId, flags };
}
