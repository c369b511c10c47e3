import { ConfigError, type JsonSchema } from '@bridle/protocol';
import { checkJsonValue } from './check-json-value';
import { type ExtraSchemas, getCompiledSchema } from './compiled-schema';
import { capErrors, resolveLimits, type ValueLimits } from './limits';
import { isStandardSchema, runStandard, type StandardSchemaV1, type ValidationResult } from './standard-schema';

/** Options of {@link validate}, {@link validateAsync} and {@link compileSchema}. */
export interface ValidateOptions extends ValueLimits {
  /**
   * Extra schemas by `$id` (URI) that `$ref` may point at. Pass the same object every time: compiled
   * validators are cached per (schema object, schemas object).
   */
  schemas?: ExtraSchemas;
  /**
   * The schema comes from an untrusted source (an MCP server, a request, a workspace file): its
   * `pattern` and `patternProperties` run on a linear-time engine (re2js), so no value can make a
   * pattern backtrack for ever, and a pattern that engine cannot run (lookaround, backreferences,
   * repeat counts over 1000) makes the schema invalid (`ConfigError`). Default false (`RegExp`).
   */
  untrusted?: boolean;
}

/** A JSON Schema object, a boolean schema, or a Standard Schema (zod 4, ...). */
export type AnySchema = JsonSchema | boolean | StandardSchemaV1;

/** A compiled validator: `$.path: message` lines, empty when the value is valid. Never throws. */
export type SchemaValidator = (value: unknown) => string[];

function asyncMisuse(): ConfigError {
  return new ConfigError('This Standard Schema validates asynchronously: call validateAsync instead of validate.');
}

/**
 * Validates `value` against a JSON Schema (draft 2020-12, Ajv; compiled once per schema object) or a
 * Standard Schema. Returns `"$.path.to[0]: message"` lines (`"$: message"` at the root), empty when
 * valid. Never throws because of `value`: NaN, Infinity, undefined, BigInt, functions, symbols, cycles,
 * class instances, nesting deeper than `maxDepth` and more than `maxNodes` values give error lines.
 * Own properties only, no coercion, no defaults; `value` is never mutated.
 * Throws `ConfigError` when the schema itself is invalid, or is a Standard Schema that validates
 * asynchronously (use {@link validateAsync}).
 */
export function validate(value: unknown, schema: AnySchema, options?: ValidateOptions): string[] {
  return compileSchema(schema, options)(value);
}

/** Like {@link validate}, but also awaits Standard Schemas that validate asynchronously. */
export async function validateAsync(value: unknown, schema: AnySchema, options?: ValidateOptions): Promise<string[]> {
  if (!isStandardSchema(schema)) return validate(value, schema, options);
  const result = await parseStandard(value, schema, options);
  return result.ok ? [] : result.errors;
}

/**
 * Runs the JSON checks (limits, non-JSON values), then the Standard Schema's own `~standard.validate`.
 * Returns the parsed value (zod defaults and transforms applied) or error lines; never rejects.
 */
export function parseStandard<T>(
  value: unknown,
  schema: StandardSchemaV1<unknown, T>,
  options?: ValueLimits,
): ValidationResult<T> | Promise<ValidationResult<T>> {
  const limits = resolveLimits(options);
  const { errors } = checkJsonValue(value, limits);
  if (errors.length > 0) return { ok: false, errors: capErrors(errors, limits.maxErrors) };
  const result = runStandard(schema, value);
  const cap = (outcome: ValidationResult<T>): ValidationResult<T> =>
    outcome.ok ? outcome : { ok: false, errors: capErrors(outcome.errors, limits.maxErrors) };
  return result instanceof Promise ? result.then(cap) : cap(result);
}

/**
 * Compiles `schema` once (cached per schema object) and returns a validator that gives
 * `$.path: message` lines, empty when valid. Throws `ConfigError` at once for an invalid JSON Schema.
 * A Standard Schema's validator throws `ConfigError` if the schema turns out to be asynchronous.
 */
export function compileSchema(schema: AnySchema, options?: ValidateOptions): SchemaValidator {
  const limits = resolveLimits(options);
  if (isStandardSchema(schema)) {
    return (value) => {
      const result = parseStandard(value, schema, limits);
      if (result instanceof Promise) {
        result.catch(() => undefined);
        throw asyncMisuse();
      }
      return result.ok ? [] : result.errors;
    };
  }
  const compiled = getCompiledSchema(schema, options?.schemas, 'Schema', options?.untrusted === true);
  return (value) => compiled.check(value, limits);
}
