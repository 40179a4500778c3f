/**
 * A tiny validator for the JSON Schema keywords docs/schema/flag-snapshot.schema.json uses.
 * It throws on any other keyword, so the schema cannot silently use one it ignores.
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$defs', '$comment']);
const KEYWORDS = new Set([
  '$ref', 'type', 'const', 'enum', 'properties', 'required', 'additionalProperties', 'items',
  'minItems', 'minimum', 'maximum', 'oneOf', 'anyOf', 'not', 'if', 'then', 'else',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

export function validate(root: Schema, value: unknown): string[] {
  const resolve = (ref: string): Schema => {
    const match = /^#\/\$defs\/(.+)$/.exec(ref);
    const target = match ? (root.$defs as Record<string, Schema> | undefined)?.[match[1]!] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return target;
  };

  function check(schema: Schema, data: unknown, path: string): string[] {
    for (const keyword of Object.keys(schema)) {
      if (!KEYWORDS.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`unsupported keyword ${keyword} at ${path}`);
    }
    const errors: string[] = [];
    const fail = (message: string) => errors.push(`${path || '/'}: ${message}`);
    if (typeof schema.$ref === 'string') errors.push(...check(resolve(schema.$ref), data, path));
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some((type) => hasType(data, type))) fail(`expected ${types.join(' or ')}, got ${typeOf(data)}`);
    }
    if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(data)) fail(`expected ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.includes(data)) fail(`${JSON.stringify(data)} is not in the enum`);
    if (typeof schema.minimum === 'number' && typeof data === 'number' && data < schema.minimum) fail(`below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && typeof data === 'number' && data > schema.maximum) fail(`above ${schema.maximum}`);
    if (typeOf(data) === 'object') {
      const object = data as Record<string, unknown>;
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      for (const name of (schema.required ?? []) as string[]) if (!(name in object)) fail(`missing ${name}`);
      for (const [name, member] of Object.entries(object)) {
        if (properties[name]) errors.push(...check(properties[name]!, member, `${path}/${name}`));
        else if (schema.additionalProperties === false) fail(`unexpected member ${name}`);
        else if (typeof schema.additionalProperties === 'object') {
          errors.push(...check(schema.additionalProperties as Schema, member, `${path}/${name}`));
        }
      }
    }
    if (Array.isArray(data)) {
      if (typeof schema.minItems === 'number' && data.length < schema.minItems) fail(`fewer than ${schema.minItems} items`);
      if (schema.items) data.forEach((item, i) => errors.push(...check(schema.items as Schema, item, `${path}/${i}`)));
    }
    if (Array.isArray(schema.oneOf)) {
      const passing = (schema.oneOf as Schema[]).filter((option) => check(option, data, path).length === 0).length;
      if (passing !== 1) fail(`matches ${passing} of the oneOf options, not exactly 1`);
    }
    if (Array.isArray(schema.anyOf) && !(schema.anyOf as Schema[]).some((option) => check(option, data, path).length === 0)) {
      fail('matches none of the anyOf options');
    }
    if (schema.not && check(schema.not as Schema, data, path).length === 0) fail('matches the not schema');
    if (schema.if) {
      const branch = check(schema.if as Schema, data, path).length === 0 ? schema.then : schema.else;
      if (branch) errors.push(...check(branch as Schema, data, path));
    }
    return errors;
  }

  return check(root, value, '');
}
