'use client';
import type { FlagDefaults, KnownFlagKey } from '../src/index';

/**
 * Declare your defaults once to type every hook:
 *
 * ```ts
 * declare module 'flagplane/react' {
 *   interface Register { defaults: typeof defaults }
 * }
 * ```
 *
 * `useFlag('new-checkout')` then returns `boolean` when `defaults['new-checkout']` is a
 * boolean. Use a type alias or `typeof`, not an interface (it must fit `FlagDefaults`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Register {}

/** The registered defaults' type, or `FlagDefaults` when none is registered. */
export type RegisteredDefaults = Register extends { defaults: infer D extends FlagDefaults } ? D : FlagDefaults;

/** The registered defaults' type, or `{}` so that no key counts as known. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type KnownFlags = Register extends { defaults: infer D extends FlagDefaults } ? D : {};

/** A registered flag key: one the defaults declare (an index signature declares none). */
export type KnownKey = KnownFlagKey<KnownFlags>;
