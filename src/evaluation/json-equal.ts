import { isArray, isObject, own } from '../shared/guards';

/** Structural equality of two JSON values. */
export const jsonEqual = (a: unknown, b: unknown): boolean =>
  a === b ||
  (isObject(a) &&
    isObject(b) &&
    isArray(a) === isArray(b) &&
    Object.keys(a).length === Object.keys(b).length &&
    Object.keys(a).every((key) => own(b, key) && jsonEqual(a[key], b[key])));
