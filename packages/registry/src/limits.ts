/** Limits applied before a value is validated, so no input can exhaust the stack, memory or time. */
export interface ValueLimits {
  /** Most levels of nested arrays and objects (`{}` is 1 level, `{ a: [] }` is 2). Default 512. */
  maxDepth?: number;
  /** Most values (every array item, property value and the root) a value may hold. Default 100,000. */
  maxNodes?: number;
  /** Most error lines reported; the rest are summarized in one last line. Default 20. */
  maxErrors?: number;
}

/** The default of {@link ValueLimits.maxDepth}. */
export const DEFAULT_MAX_DEPTH = 512;
/** The default of {@link ValueLimits.maxNodes}. */
export const DEFAULT_MAX_NODES = 100_000;
/** The default of {@link ValueLimits.maxErrors}. */
export const DEFAULT_MAX_ERRORS = 20;

/** Limits with every default filled in. */
export type ResolvedLimits = Required<ValueLimits>;

/** Fills in defaults; a limit that is not a positive integer falls back to its default. */
export function resolveLimits(limits: ValueLimits | undefined): ResolvedLimits {
  return {
    maxDepth: positiveInteger(limits?.maxDepth, DEFAULT_MAX_DEPTH),
    maxNodes: positiveInteger(limits?.maxNodes, DEFAULT_MAX_NODES),
    maxErrors: positiveInteger(limits?.maxErrors, DEFAULT_MAX_ERRORS),
  };
}

function positiveInteger(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/** Keeps at most `maxErrors` lines (deduplicated), summarizing the rest in one line. */
export function capErrors(errors: readonly string[], maxErrors: number): string[] {
  const unique = [...new Set(errors)];
  if (unique.length <= maxErrors) return unique;
  const kept = unique.slice(0, maxErrors);
  kept.push(`$: ${unique.length - maxErrors} more errors not shown; fix the ones above first`);
  return kept;
}
