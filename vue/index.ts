export { createFlagsPlugin } from './plugin';
export { useFlag, useFlagDetails, useFlags, useFlagsStatus, useFlagsClient } from './composables';

export type { FlagsPluginOptions } from './plugin';
export type { Register, RegisteredDefaults, KnownKey, KnownFlags, OtherKey, UnsetOf } from './types';
