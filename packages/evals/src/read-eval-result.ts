import { ConfigError, describeValue } from '@bridle/protocol';
import type { EvalResult } from './types';

/**
 * An eval result from its JSON text (what `bridle eval --out` wrote), checked enough to report and compare
 * it; throws `ConfigError` naming `name` and what is wrong.
 */
export function readEvalResult(text: string, name = 'eval result'): EvalResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${name} is not JSON (${(error as Error).message}): give the file bridle eval --out wrote.`);
  }
  const result = value as Partial<EvalResult> | null;
  if (typeof result !== 'object' || result === null || result.version !== 1)
    throw new ConfigError(
      `${name} is not an eval result of this version (expected {"version": 1, ...}, got ${describeValue(result?.version ?? result)}): give the file bridle eval --out wrote.`,
    );
  for (const key of ['variants', 'scorers', 'cases', 'summary'] as const)
    if (!Array.isArray(result[key]))
      throw new ConfigError(
        `${name}: "${key}" must be an array, got ${describeValue(result[key])}; the file is damaged.`,
      );
  if (typeof result.evalId !== 'string') throw new ConfigError(`${name}: "evalId" is missing; the file is damaged.`);
  return result as EvalResult;
}
