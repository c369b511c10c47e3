/** Keywords whose value is a map of name -> subschema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is one subschema, or (`items` in old drafts) an array of them. */
const SCHEMA_VALUES = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
];
/** Keywords whose value is an array of subschemas. */
const SCHEMA_ARRAYS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
const PROTO = '__proto__';
const PROTO_PATTERN = '^__proto__$';

type SchemaObject = Record<string, unknown>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets a key without ever invoking the `__proto__` setter. */
function define(target: SchemaObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function copyObject(source: SchemaObject, skip?: string): SchemaObject {
  const copy: SchemaObject = {};
  for (const key of Object.keys(source)) if (key !== skip) define(copy, key, source[key]);
  return copy;
}

function normalizeMap(map: SchemaObject): SchemaObject {
  let copy: SchemaObject | undefined;
  for (const key of Object.keys(map)) {
    const normalized = normalizeSchema(map[key]);
    if (normalized !== map[key]) define((copy ??= copyObject(map)), key, normalized);
  }
  return copy ?? map;
}

function normalizeArray(list: readonly unknown[]): readonly unknown[] {
  const normalized = list.map(normalizeSchema);
  return normalized.some((item, index) => item !== list[index]) ? normalized : list;
}

const normalizedRoots = new WeakMap<object, unknown>();

/** {@link normalizeSchema} for a root schema, cached per schema object. */
export function normalizeRootSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  let normalized = normalizedRoots.get(schema);
  if (normalized === undefined) {
    normalized = normalizeSchema(schema);
    normalizedRoots.set(schema, normalized);
  }
  return normalized;
}

/**
 * Works around two Ajv 8 gaps without changing what a schema means; returns the schema itself when
 * nothing needed changing, else a copy (the input is never mutated):
 * - Ajv skips a property named `__proto__` in `properties` (a guard against prototype pollution),
 *   so it would neither be validated nor count as declared. It moves to `patternProperties` as
 *   `^__proto__$`, which `additionalProperties` and `unevaluatedProperties` treat the same way.
 * - Ajv refuses `enum: []` at compile time; in 2020-12 it is valid and matches nothing (`allOf: [false]`).
 * The caller has bounded the schema's depth, so this recursion is safe.
 */
export function normalizeSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  let copy: SchemaObject | undefined;
  const set = (key: string, value: unknown): void => define((copy ??= copyObject(schema)), key, value);
  for (const keyword of SCHEMA_MAPS) {
    const value = schema[keyword];
    if (Object.hasOwn(schema, keyword) && isObject(value)) {
      const normalized = normalizeMap(value);
      if (normalized !== value) set(keyword, normalized);
    }
  }
  for (const keyword of SCHEMA_VALUES) {
    if (!Object.hasOwn(schema, keyword)) continue;
    const value = schema[keyword];
    const normalized = Array.isArray(value) ? normalizeArray(value) : normalizeSchema(value);
    if (normalized !== value) set(keyword, normalized);
  }
  for (const keyword of SCHEMA_ARRAYS) {
    const value = schema[keyword];
    if (Object.hasOwn(schema, keyword) && Array.isArray(value)) {
      const normalized = normalizeArray(value);
      if (normalized !== value) set(keyword, normalized);
    }
  }
  const current: SchemaObject = copy ?? schema;
  const properties = current.properties;
  if (isObject(properties) && Object.hasOwn(properties, PROTO)) {
    const patterns = isObject(current.patternProperties) ? copyObject(current.patternProperties) : {};
    const existing = Object.hasOwn(patterns, PROTO_PATTERN) ? patterns[PROTO_PATTERN] : undefined;
    const moved = properties[PROTO];
    define(patterns, PROTO_PATTERN, existing === undefined ? moved : { allOf: [existing, moved] });
    set('properties', copyObject(properties, PROTO));
    set('patternProperties', patterns);
  }
  if (Array.isArray(current.enum) && current.enum.length === 0) {
    const target = copy ?? copyObject(schema);
    copy = target;
    delete target.enum;
    define(target, 'allOf', [...(Array.isArray(target.allOf) ? target.allOf : []), false]);
  }
  return copy ?? schema;
}
