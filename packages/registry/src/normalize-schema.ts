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

function copyObject(source: SchemaObject, skip: readonly string[] = []): SchemaObject {
  const copy: SchemaObject = {};
  for (const key of Object.keys(source)) if (!skip.includes(key)) define(copy, key, source[key]);
  return copy;
}

function normalizeMap(map: SchemaObject): SchemaObject {
  let copy: SchemaObject | undefined;
  for (const key of Object.keys(map)) {
    const normalized = normalizeSchema(map[key], false);
    if (normalized === map[key]) continue;
    copy = copy ?? copyObject(map);
    define(copy, key, normalized);
  }
  return copy ?? map;
}

function normalizeArray(list: readonly unknown[]): readonly unknown[] {
  const normalized = list.map((item) => normalizeSchema(item, false));
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
 * - Ajv recurses without end on an embedded resource (a subschema with its own `$id`) whose `$ref`
 *   points into its own `$defs`; the `$ref` moves into `allOf: [{ $ref }]`, the same in 2020-12.
 * The caller has bounded the schema's depth, so this recursion is safe.
 */
export function normalizeSchema(schema: unknown, isRoot = true): unknown {
  if (!isObject(schema)) return schema;
  const changes = new Map<string, unknown>();
  for (const keyword of Object.keys(schema)) {
    const value = schema[keyword];
    let normalized = value;
    if (SCHEMA_MAPS.includes(keyword) && isObject(value)) normalized = normalizeMap(value);
    else if (SCHEMA_VALUES.includes(keyword))
      normalized = Array.isArray(value) ? normalizeArray(value) : normalizeSchema(value, false);
    else if (SCHEMA_ARRAYS.includes(keyword) && Array.isArray(value)) normalized = normalizeArray(value);
    if (normalized !== value) changes.set(keyword, normalized);
  }
  const current = (keyword: string): unknown => (changes.has(keyword) ? changes.get(keyword) : schema[keyword]);
  const properties = current('properties');
  if (isObject(properties) && Object.hasOwn(properties, PROTO)) {
    const existingPatterns = current('patternProperties');
    const patterns = isObject(existingPatterns) ? copyObject(existingPatterns) : {};
    const existing = Object.hasOwn(patterns, PROTO_PATTERN) ? patterns[PROTO_PATTERN] : undefined;
    const moved = properties[PROTO];
    define(patterns, PROTO_PATTERN, existing === undefined ? moved : { allOf: [existing, moved] });
    changes.set('properties', copyObject(properties, [PROTO]));
    changes.set('patternProperties', patterns);
  }
  const enumValues = current('enum');
  const emptyEnum = Array.isArray(enumValues) && enumValues.length === 0;
  if (emptyEnum) {
    const allOf = current('allOf');
    changes.set('allOf', [...(Array.isArray(allOf) ? allOf : []), false]);
  }
  const refInResource = !isRoot && typeof schema.$id === 'string' && typeof schema.$ref === 'string';
  if (refInResource) {
    const allOf = current('allOf');
    changes.set('allOf', [...(Array.isArray(allOf) ? allOf : []), { $ref: schema.$ref }]);
  }
  if (changes.size === 0) return schema;
  const copy = copyObject(schema, [...(emptyEnum ? ['enum'] : []), ...(refInResource ? ['$ref'] : [])]);
  for (const [keyword, value] of changes) define(copy, keyword, value);
  return copy;
}
