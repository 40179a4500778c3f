import type { Flag, FlagSnapshot, JsonValue } from '../../src/snapshot/snapshot-types';

/** A flag serving one of `variations` (the first when off). */
const flag = (...variations: JsonValue[]): Flag => ({ on: true, variations, offVariation: 0, rules: [], fallthrough: { variation: 0 }, salt: 's', clientSide: true });

/**
 * The snapshot the type tests generate their `Flags` from: each kind of flag, and keys that
 * are not identifiers (test/types/sample-apps.ts compiles apps against its module).
 */
export const TYPED_SNAPSHOT: FlagSnapshot = {
  schemaVersion: 1,
  version: 7,
  environmentId: 'production',
  flags: {
    'new-checkout': flag(false, true),
    theme: flag('dark', 'light'),
    'seat-limit': flag(5, 50),
    'remote-config': flag({ retries: 1, tags: ['a'] }, { retries: 3, tags: [], endpoint: 'https://x' }),
    "it's": flag('a\'b', 'c"d'),
    holiday: flag(null, { palette: 'red' }),
  },
};
