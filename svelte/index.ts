export { setFlagsClient, getFlagsClient } from './context';
export { flag, flagDetails, flagsStatus } from './stores';

export type { Register, RegisteredClient, KnownFlags, KnownKey, OtherKey, Unset } from './types';
