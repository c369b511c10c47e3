import { errorMessage } from '@bridle/protocol/internal';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { formatPath, type PathSegment } from './json-path';

export type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';

/** True for any Standard Schema (zod 4, Valibot, ArkType, ...): an object with a `~standard.validate` function. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    const standard = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
    return typeof standard === 'object' && standard !== null && typeof standard.validate === 'function';
  } catch {
    return false;
  }
}

function segmentOf(entry: PropertyKey | StandardSchemaV1.PathSegment): PathSegment {
  const key = typeof entry === 'object' && entry !== null ? entry.key : entry;
  return typeof key === 'symbol' ? String(key) : key;
}

/** Standard Schema issues as `$.path: message` lines. */
export function formatIssues(issues: readonly StandardSchemaV1.Issue[]): string[] {
  if (issues.length === 0) return ['$: is invalid'];
  return issues.map((issue) => {
    const segments = (issue.path ?? []).map(segmentOf);
    return `${formatPath(segments)}: ${issue.message}`;
  });
}

/** The outcome of validating a value: the parsed value, or error lines. */
export type ValidationResult<T = unknown> = { ok: true; value: T } | { ok: false; errors: string[] };

/** Maps a Standard Schema result to a {@link ValidationResult}. */
export function fromStandardResult<T>(result: StandardSchemaV1.Result<T>): ValidationResult<T> {
  if (result.issues) return { ok: false, errors: formatIssues(result.issues) };
  return { ok: true, value: result.value };
}

/**
 * Runs `~standard.validate`; a thrown error (a stack overflow inside the library, a bug) becomes an
 * error line. The result is a Promise when the schema validates asynchronously.
 */
export function runStandard<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
): ValidationResult<T> | Promise<ValidationResult<T>> {
  const failed = (error: unknown): ValidationResult<T> => ({
    ok: false,
    errors: [`$: could not be validated (${errorMessage(error)})`],
  });
  try {
    const result = schema['~standard'].validate(value);
    if (typeof (result as Partial<PromiseLike<unknown>>).then === 'function') {
      return Promise.resolve(result).then(fromStandardResult, failed);
    }
    return fromStandardResult(result as StandardSchemaV1.Result<T>);
  } catch (error) {
    return failed(error);
  }
}
