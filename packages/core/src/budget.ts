import type { Message, Usage } from '@bridle/protocol';
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

/**
 * What the model call of the next step is estimated to use (see `BudgetRequest.estimate`): the request's
 * characters at 4 to a token plus the run's average output per call so far; dollars at the run's average
 * price per token so far (0 before its first priced call).
 */
export function estimateStep(
  system: string | undefined,
  messages: readonly Message[],
  usage: Usage,
  steps: number,
): { tokens: number; costUsd: number } {
  let chars = system?.length ?? 0;
  // The JSON of each message: its tool calls and results count too (an estimate errs on the high side).
  for (const message of messages) chars += JSON.stringify(message).length;
  const output = steps > 0 ? Math.ceil(usage.outputTokens / steps) : 0;
  const tokens = Math.ceil(chars / 4) + output;
  const used = usage.inputTokens + usage.outputTokens;
  const costUsd = used > 0 && usage.costUsd !== undefined ? (usage.costUsd / used) * tokens : 0;
  return { tokens, costUsd };
}
