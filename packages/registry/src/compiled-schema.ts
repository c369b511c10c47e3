import { ConfigError, describeValue } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { ValidateFunction } from 'ajv';
import type Ajv2020 from 'ajv/dist/2020.js';
import { formatAjvErrors } from './ajv-errors';
import { createAjv, metaSchemaErrors } from './ajv-instance';
import { checkJsonValue } from './check-json-value';
import { evaluationPaths, isNode } from './evaluation-paths';
import { EvaluationSteps } from './evaluation-steps';
import { capErrors, type ResolvedLimits } from './limits';
import { normalizeRootSchema } from './normalize-schema';

/** A JSON Schema document (object) or a boolean schema. */
export type SchemaDocument = Record<string, unknown> | boolean;

/** Extra schemas a `$ref` may point at, by their `$id` / URI (e.g. `http://localhost:1234/tree.json`). */
export type ExtraSchemas = Readonly<Record<string, SchemaDocument>>;

/** Values bigger than this are checked with a first-error-only validator: `allErrors` stays bounded. */
const ALL_ERRORS_MAX_NODES = 10_000;
/** Schemas themselves are data too: bounded the same way before Ajv sees them. */
const SCHEMA_LIMITS: ResolvedLimits = { maxDepth: 256, maxNodes: 1_000_000, maxErrors: 5 };

function assertSchemaDocument(schema: unknown, label: string): asserts schema is SchemaDocument {
  if (typeof schema === 'boolean') return;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError(`${label} must be a JSON Schema object (or true/false), got ${describeValue(schema)}.`);
  }
  const { errors } = checkJsonValue(schema, SCHEMA_LIMITS);
  if (errors.length > 0) {
    throw new ConfigError(`${label} is not plain JSON: ${errors.join('; ')}. Write the schema as plain JSON data.`);
  }
  const problems = metaSchemaErrors(schema);
  if (problems !== undefined) {
    throw new ConfigError(`${label} is not a valid JSON Schema (draft 2020-12): ${problems}. Fix the schema.`);
  }
}

/** Most evaluation paths of one value an untrusted schema may have (real MCP servers' schemas: under 20). */
const MAX_UNTRUSTED_PATHS = 10_000;
/**
 * Most checks validating one value against an untrusted schema may cost: a base plus a few per value
 * in it (real schemas need one or two per value), so recursion that multiplies over the value's
 * nesting is refused before Ajv runs.
 */
const STEPS_BASE = 20_000;
const STEPS_PER_VALUE = 20;

function assertBoundedPaths(schema: SchemaDocument, label: string): void {
  let paths: number;
  try {
    paths = evaluationPaths(schema, MAX_UNTRUSTED_PATHS);
  } catch {
    // A chain of $refs too long to follow on the stack.
    paths = MAX_UNTRUSTED_PATHS + 1;
  }
  if (paths > MAX_UNTRUSTED_PATHS) {
    throw new ConfigError(
      `${label} is too complex for a schema from an untrusted source: one value would be checked along more than ${MAX_UNTRUSTED_PATHS} paths (its $ref and anyOf / allOf / oneOf branches multiply). Simplify the schema.`,
    );
  }
}

/**
 * One root schema compiled with its extra schemas; the `allErrors` variant is compiled on first need.
 * `untrusted`: its patterns run on a linear-time engine (see {@link createAjv}).
 */
export class CompiledSchema {
  readonly #schema: SchemaDocument;
  readonly #extra: ExtraSchemas | undefined;
  readonly #label: string;
  readonly #untrusted: boolean;
  readonly #steps: EvaluationSteps | undefined;
  readonly #firstError: ValidateFunction;
  #allErrors: ValidateFunction | undefined;

  constructor(schema: SchemaDocument, extra: ExtraSchemas | undefined, label: string, untrusted: boolean) {
    this.#schema = schema;
    this.#extra = extra;
    this.#label = label;
    this.#untrusted = untrusted;
    this.#steps = untrusted && isNode(schema) ? new EvaluationSteps(schema) : undefined;
    this.#firstError = this.#compile(false);
  }

  #compile(allErrors: boolean): ValidateFunction {
    const ajv: Ajv2020 = createAjv(allErrors, this.#untrusted);
    try {
      for (const [id, extraSchema] of Object.entries(this.#extra ?? {})) {
        ajv.addSchema(normalizeRootSchema(extraSchema) as SchemaDocument, id);
      }
      return ajv.compile(normalizeRootSchema(this.#schema) as SchemaDocument);
    } catch (error) {
      throw new ConfigError(`${this.#label} could not be compiled: ${errorMessage(error)}. Fix the schema.`, {
        cause: error,
      });
    }
  }

  /** `$.path: message` lines for `value`, empty when valid. Never throws. */
  check(value: unknown, limits: ResolvedLimits): string[] {
    const walk = checkJsonValue(value, limits);
    if (walk.errors.length > 0) return capErrors(walk.errors, limits.maxErrors);
    const budget = STEPS_BASE + STEPS_PER_VALUE * walk.nodes;
    if (this.#steps !== undefined && !this.#steps.within(value, budget)) {
      return [
        `$: could not be validated: checking this value against the schema would take more than ${budget} steps (the schema's branches multiply over the value's nesting); send a smaller, less deeply nested value`,
      ];
    }
    try {
      if (this.#firstError(value)) return [];
      let errors = this.#firstError.errors ?? [];
      if (walk.nodes <= ALL_ERRORS_MAX_NODES) {
        this.#allErrors ??= this.#compile(true);
        this.#allErrors(value);
        errors = this.#allErrors.errors ?? errors;
      }
      const lines = formatAjvErrors(errors, value);
      return capErrors(lines.length > 0 ? lines : ['$: is invalid'], limits.maxErrors);
    } catch (error) {
      // A RangeError from a recursive schema on deep data, or a getter that throws during validation.
      return [`$: could not be validated (${errorMessage(error)}); send plain, less deeply nested JSON`];
    }
  }
}

const NO_EXTRA = {};
const BOOLEAN_KEYS = { true: {}, false: {} };
const caches = { trusted: new WeakMap<object, WeakMap<object, CompiledSchema>>(), untrusted: new WeakMap() };
const checkedExtras = new WeakSet<object>();

function assertExtraSchemas(extra: ExtraSchemas): void {
  if (checkedExtras.has(extra)) return;
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    throw new ConfigError(`options.schemas must be an object of schemas by $id, got ${describeValue(extra)}.`);
  }
  for (const [id, schema] of Object.entries(extra))
    assertSchemaDocument(schema, `options.schemas[${JSON.stringify(id)}]`);
  checkedExtras.add(extra);
}

/**
 * The compiled form of `schema` (with `extra` schemas for `$ref`), compiled once per schema object,
 * `extra` object and trust. Throws `ConfigError` for a schema that is not valid draft 2020-12, and for
 * an `untrusted` one with a pattern the linear-time engine cannot run.
 */
export function getCompiledSchema(
  schema: unknown,
  extra?: ExtraSchemas,
  label = 'Schema',
  untrusted = false,
): CompiledSchema {
  const cache = untrusted ? caches.untrusted : caches.trusted;
  const extraKey = extra ?? NO_EXTRA;
  const schemaKey = typeof schema === 'boolean' ? BOOLEAN_KEYS[`${schema}`] : schema;
  const byExtra = typeof schemaKey === 'object' && schemaKey !== null ? cache.get(extraKey) : undefined;
  const hit = byExtra?.get(schemaKey as object);
  if (hit !== undefined) return hit;
  if (extra !== undefined) assertExtraSchemas(extra);
  assertSchemaDocument(schema, label);
  if (untrusted) assertBoundedPaths(schema, label);
  const compiled = new CompiledSchema(schema, extra, label, untrusted);
  let perExtra = cache.get(extraKey);
  if (perExtra === undefined) {
    perExtra = new WeakMap();
    cache.set(extraKey, perExtra);
  }
  perExtra.set(schemaKey as object, compiled);
  return compiled;
}
