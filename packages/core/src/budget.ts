import type { Usage } from '@bridle/protocol';
import type { Ending } from './loop-state';
import type { ResolvedBudget } from './resolve-options';

/**
 * The `budget_limit` ending when the run's summed usage has reached a budget, checked before the model
 * call of `step` (so a run passes its budget by at most one step); `undefined` while within it.
 */
export function budgetEnding(budget: ResolvedBudget, usage: Usage, step: number): Ending | undefined {
  const tokens = usage.inputTokens + usage.outputTokens;
  if (tokens >= budget.maxTokens)
    return {
      status: 'budget_limit',
      error: `The run used ${tokens} tokens, reaching budget.maxTokens (${budget.maxTokens}); stopped before model call ${step}.`,
    };
  const cost = usage.costUsd ?? 0;
  if (cost >= budget.maxCostUsd)
    return {
      status: 'budget_limit',
      error: `The run cost $${roundCost(cost)}, reaching budget.maxCostUsd ($${budget.maxCostUsd}); stopped before model call ${step}.`,
    };
  return undefined;
}

function roundCost(cost: number): string {
  return cost.toFixed(6).replace(/\.?0+$/, '');
}
