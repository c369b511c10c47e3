import type { CaseResult, ScorerSummary, VariantSummary } from './types';

/** Nearest-rank percentile of sorted numbers (0 for none). */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

/** Per variant and scorer: pass rates, mean scores, tokens, cost and p50 / p95 run time. */
export function summarizeEval(
  cases: readonly CaseResult[],
  variants: readonly string[],
  scorers: readonly string[],
): VariantSummary[] {
  return variants.map((variant) => {
    const own = cases.filter((result) => result.variant === variant);
    const durations = own.map((result) => result.durationMs).sort((a, b) => a - b);
    let inputTokens = 0;
    let outputTokens = 0;
    let runCost = 0;
    let scoringCostUsd = 0;
    for (const result of own) {
      inputTokens += result.usage.inputTokens;
      outputTokens += result.usage.outputTokens;
      runCost += result.usage.costUsd ?? 0;
      scoringCostUsd += result.scoringUsage?.costUsd ?? 0;
    }
    const priced = own.some((result) => result.usage.costUsd !== undefined);
    return {
      variant,
      cases: own.length,
      completed: own.filter((result) => result.status === 'completed').length,
      passed: own.filter((result) => result.passed).length,
      usage: { inputTokens, outputTokens, ...(priced ? { costUsd: runCost } : {}) },
      costUsd: runCost + scoringCostUsd,
      scoringCostUsd,
      p50Ms: percentile(durations, 0.5),
      p95Ms: percentile(durations, 0.95),
      scorers: scorers.map((scorer): ScorerSummary => {
        const scores = own.flatMap((result) => result.scores.filter((score) => score.scorer === scorer));
        const numeric = scores.map((score) => score.score).filter((score): score is number => score !== null);
        const passed = scores.filter((score) => score.passed).length;
        return {
          scorer,
          total: scores.length,
          passed,
          errors: scores.length - numeric.length,
          passRate: scores.length === 0 ? 1 : passed / scores.length,
          meanScore: numeric.length === 0 ? null : numeric.reduce((sum, score) => sum + score, 0) / numeric.length,
        };
      }),
    };
  });
}
