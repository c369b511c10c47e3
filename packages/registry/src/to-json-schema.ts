import { ConfigError, describeValue, type JsonSchema } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { StandardJSONSchemaV1 } from '@standard-schema/spec';
import { checkJsonValue } from './check-json-value';
import { isStandardSchema, type StandardSchemaV1 } from './standard-schema';

const LIMITS = { maxDepth: 256, maxNodes: 1_000_000, maxErrors: 5 };
/** Keys that only add noise for a provider: zod's hidden `~standard` and the root `$schema`. */
const DROPPED_AT_ROOT = new Set(['$schema', '~standard']);

/**
 * A plain deep copy of JSON data. Keys are defined, never assigned, so a `__proto__` key stays an
 * ordinary own property and cannot change a prototype. Depth is bounded by the caller's check.
 */
function copyJson(value: unknown, dropped: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => copyJson(item, new Set()));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (dropped.has(key)) continue;
    Object.defineProperty(copy, key, {
      value: copyJson((value as Record<string, unknown>)[key], new Set()),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** A shallow view of the root without the dropped keys, so they are not checked as JSON. */
function withoutDroppedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  if (!Object.keys(value).some((key) => DROPPED_AT_ROOT.has(key))) return value;
  const view: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (DROPPED_AT_ROOT.has(key)) continue;
    Object.defineProperty(view, key, { value: (value as Record<string, unknown>)[key], enumerable: true });
  }
  return view;
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function hasJsonSchemaConverter(schema: StandardSchemaV1): schema is StandardSchemaV1 & StandardJSONSchemaV1 {
  const converter = (schema['~standard'] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  return typeof converter === 'object' && converter !== null && typeof converter.input === 'function';
}

const converted = new WeakMap<object, JsonSchema>();

/**
 * The JSON Schema (draft 2020-12) a provider should see for `schema`: a JSON Schema object is copied
 * as plain JSON; a Standard Schema is converted through its Standard JSON Schema interface
 * (`~standard.jsonSchema.input`, zod >= 4.2) describing the INPUT the model must send. zod's hidden
 * `~standard` property and the root `$schema` are dropped. Cached per schema object. Throws
 * `ConfigError` when the schema is not plain JSON or the library cannot produce JSON Schema.
 */
export function toJsonSchema(schema: JsonSchema | StandardSchemaV1): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError(
      `Expected a JSON Schema object or a Standard Schema (zod 4, ...), got ${describeValue(schema)}.`,
    );
  }
  const cached = converted.get(schema);
  if (cached !== undefined) return cached;
  let source: unknown = schema;
  if (isStandardSchema(schema)) {
    const vendor = String(schema['~standard'].vendor);
    if (!hasJsonSchemaConverter(schema)) {
      throw new ConfigError(
        `The ${vendor} schema cannot be converted to JSON Schema: it lacks ~standard.jsonSchema. Use zod 4.2 or newer, or pass a JSON Schema object.`,
      );
    }
    try {
      source = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    } catch (error) {
      const reason = errorMessage(error);
      throw new ConfigError(
        `The ${vendor} schema cannot be converted to JSON Schema (${reason}). Use only types JSON can carry (no dates, bigints, functions or transforms on inputs).`,
        { cause: error },
      );
    }
  }
  const { errors } = checkJsonValue(withoutDroppedKeys(source), LIMITS);
  if (errors.length > 0) {
    throw new ConfigError(`The schema is not plain JSON: ${errors.join('; ')}. Write the schema as plain JSON data.`);
  }
  const result = deepFreeze(copyJson(source, DROPPED_AT_ROOT)) as JsonSchema;
  converted.set(schema, result);
  return result;
}
