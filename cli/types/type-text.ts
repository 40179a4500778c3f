import type { JsonValue } from '../../src/snapshot/snapshot-types';

/** A string as a single-quoted TypeScript literal. */
export const quote = (text: string): string =>
  // JSON's escapes are TypeScript's; every `"` in JSON's text is escaped, so `\"` is always one.
  `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;

/** A property name: bare when it is an identifier, else quoted. */
export const propertyName = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : quote(key));

/** The union of `types`, each once, in the order first seen; `never` for none. */
export function unionOf(types: string[]): string {
  const distinct = [...new Set(types)];
  return distinct.length ? distinct.join(' | ') : 'never';
}

/** An array of `element`: `string[]` for a one-word type, else `Array<A | B>`. */
const arrayOf = (element: string): string => (/^\w+$/.test(element) ? `${element}[]` : `Array<${element}>`);

/**
 * The shape of a value inside a JSON flag: strings, numbers and booleans as their type (not
 * their literal), `null` as itself, an array as an array of the union of its elements'
 * shapes, an object as its keys (sorted, so that key order makes no other shape) and their
 * shapes. An empty array or object is typed as empty: `never[]`, `Record<string, never>`.
 */
export function shapeOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return arrayOf(unionOf(value.map(shapeOf)));
  if (typeof value !== 'object') return typeof value;
  const keys = Object.keys(value).sort();
  if (!keys.length) return 'Record<string, never>';
  return `{ ${keys.map((key) => `${propertyName(key)}: ${shapeOf(value[key]!)}`).join('; ')} }`;
}

/**
 * A flag's type from its variations: the union of each one's type, where a string is its
 * literal (`'blue' | 'green'`) and anything else its shape (`boolean`, `number`, `{ … }`).
 */
export const typeOfVariations = (variations: JsonValue[]): string =>
  unionOf(variations.map((variation) => (typeof variation === 'string' ? quote(variation) : shapeOf(variation))));
