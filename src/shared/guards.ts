/** A non-null object (arrays included): the only values whose members we read. */
export const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null;

export const isString = (x: unknown): x is string => typeof x === 'string';

export const isNumber = (x: unknown): x is number => typeof x === 'number';

export const { isArray } = Array;

/** A string of 1 to 256 characters: what the events route takes as a key or a userId (protocol.md §9). */
export const isId = (x: unknown): x is string => isString(x) && x.length > 0 && x.length <= 256;

/** A non-null object that is not an array: a JSON object. */
export const isRecord = (x: unknown): x is Record<string, unknown> => isObject(x) && !isArray(x);

// An own-property check, so names like `constructor` or `__proto__` never resolve to
// Object.prototype members. `Object.hasOwn` is ES2022; the bundle targets ES2020.
export const own = (o: object, key: string): boolean => ({}).hasOwnProperty.call(o, key);
