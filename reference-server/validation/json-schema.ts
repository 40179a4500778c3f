/**
 * A small validator for the JSON Schema keywords docs/schema/flag-snapshot.schema.json uses.
 * It throws on any other keyword, so the schema cannot silently use one it ignores.
 */
import { jsonEqual } from '../../src/evaluation/json-equal';

export type Schema = Readonly<Record<string, unknown>>;

/** One way a value breaks its schema: where (`rules[0].serve`, '' for the value itself) and what. */
export interface SchemaViolation {
  path: string;
  problem: string;
}

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$defs', '$comment']);
const KEYWORDS = new Set([
  '$ref', 'type', 'const', 'enum', 'properties', 'required', 'additionalProperties', 'items',
  'minItems', 'minimum', 'maximum', 'oneOf', 'anyOf', 'not', 'if', 'then', 'else',
  'uniqueItems', 'minLength', 'maxLength', 'maxProperties', 'propertyNames',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const hasType = (value: unknown, type: string) => typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer');
const member = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** `minLength` and `maxLength`, in code points as JSON Schema counts them (not UTF-16 units). */
function lengthViolations(schema: Schema, text: string, path: string): SchemaViolation[] {
  const length = [...text].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return [{ path, problem: `must have at least ${schema.minLength} character(s)` }];
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return [{ path, problem: `must have at most ${schema.maxLength} characters, not ${length}` }];
  return [];
}

/** `uniqueItems`: each item equal to an earlier one, named by its own index. */
function repeatedItems(items: unknown[], path: string): SchemaViolation[] {
  return items.flatMap((item, i) => {
    const earlier = items.findIndex((other) => jsonEqual(other, item));
    return earlier < i ? [{ path: `${path}[${i}]`, problem: `must be unique: ${JSON.stringify(item)} is also ${path}[${earlier}]` }] : [];
  });
}

/**
 * Every violation of `schema` (resolving `$ref`s against `root`) by `value`, in document
 * order. Where no `oneOf`/`anyOf` option fits, the violations of the closest option (the
 * fewest of them) are given, which names the member to fix rather than the whole union.
 */
export function validateSchema(root: Schema, schema: Schema, value: unknown, path = ''): SchemaViolation[] {
  const resolve = (ref: string): Schema => {
    const match = /^#\/\$defs\/(.+)$/.exec(ref);
    const target = match ? (root.$defs as Record<string, Schema> | undefined)?.[match[1]!] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return target;
  };
  const closest = (options: Schema[], data: unknown, at: string) =>
    options.map((option) => check(option, data, at)).sort((a, b) => a.length - b.length)[0] ?? [];

  function check(current: Schema, data: unknown, at: string): SchemaViolation[] {
    for (const keyword of Object.keys(current)) {
      if (!KEYWORDS.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`unsupported keyword ${keyword} at ${at}`);
    }
    const found: SchemaViolation[] = [];
    const fail = (problem: string, where = at) => found.push({ path: where, problem });
    if (typeof current.$ref === 'string') found.push(...check(resolve(current.$ref), data, at));
    if (current.type !== undefined) {
      const types = Array.isArray(current.type) ? (current.type as string[]) : [current.type as string];
      if (!types.some((type) => hasType(data, type))) return [...found, { path: at, problem: `must be ${types.join(' or ')}, not ${typeOf(data)}` }];
    }
    if ('const' in current && JSON.stringify(current.const) !== JSON.stringify(data)) fail(`must be ${JSON.stringify(current.const)}`);
    if (Array.isArray(current.enum) && !current.enum.includes(data)) {
      fail(`must be one of ${current.enum.map((option) => JSON.stringify(option)).join(', ')}, not ${JSON.stringify(data)}`);
    }
    if (typeof current.minimum === 'number' && typeof data === 'number' && data < current.minimum) fail(`must be at least ${current.minimum}`);
    if (typeof current.maximum === 'number' && typeof data === 'number' && data > current.maximum) fail(`must be at most ${current.maximum}`);
    if (typeof data === 'string') found.push(...lengthViolations(current, data, at));
    if (typeOf(data) === 'object') {
      const object = data as Record<string, unknown>;
      const properties = (current.properties ?? {}) as Record<string, Schema>;
      for (const name of (current.required ?? []) as string[]) if (!(name in object)) fail('is required', member(at, name));
      const count = Object.keys(object).length;
      if (typeof current.maxProperties === 'number' && count > current.maxProperties) fail(`must have at most ${current.maxProperties} members, not ${count}`);
      if (current.propertyNames) {
        for (const name of Object.keys(object)) {
          const [bad] = check(current.propertyNames as Schema, name, at);
          if (bad) fail(`has a member name ${JSON.stringify(name)} that ${bad.problem}`);
        }
      }
      for (const [name, value] of Object.entries(object)) {
        if (properties[name]) found.push(...check(properties[name]!, value, member(at, name)));
        else if (current.additionalProperties === false) fail('is not a member of this object', member(at, name));
        else if (typeof current.additionalProperties === 'object') found.push(...check(current.additionalProperties as Schema, value, member(at, name)));
      }
    }
    if (Array.isArray(data)) {
      if (typeof current.minItems === 'number' && data.length < current.minItems) fail(`must have at least ${current.minItems} item(s)`);
      if (current.items) data.forEach((item, i) => found.push(...check(current.items as Schema, item, `${at}[${i}]`)));
      if (current.uniqueItems === true) found.push(...repeatedItems(data, at));
    }
    if (Array.isArray(current.oneOf)) {
      const options = current.oneOf as Schema[];
      const passing = options.filter((option) => check(option, data, at).length === 0).length;
      if (passing === 0) found.push(...closest(options, data, at));
      else if (passing > 1) fail(`matches ${passing} of its forms, not exactly one`);
    }
    if (Array.isArray(current.anyOf) && !(current.anyOf as Schema[]).some((option) => check(option, data, at).length === 0)) {
      found.push(...closest(current.anyOf as Schema[], data, at));
    }
    if (current.not && check(current.not as Schema, data, at).length === 0) {
      // The schema's one `not` forbids members (`values` of an `exists` condition): name them.
      const forbidden = ((current.not as Schema).required ?? []) as string[];
      if (forbidden.length > 0) forbidden.forEach((name) => fail('must not be given here', member(at, name)));
      else fail('has a form it must not have');
    }
    if (current.if) {
      const branch = check(current.if as Schema, data, at).length === 0 ? current.then : current.else;
      if (branch) found.push(...check(branch as Schema, data, at));
    }
    return found;
  }

  return check(schema, value, path);
}
