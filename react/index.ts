'use client';
export { FlagsProvider } from './provider';
export { useFlag, useFlagDetails, useFlags, useFlagsStatus, useFlagsClient } from './hooks';

export type { FlagsProviderProps } from './provider';
export type { Register, RegisteredDefaults, KnownKey, KnownFlags, OtherKey, UnsetOf } from './types';
