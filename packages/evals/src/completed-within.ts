import { ConfigError, describeValue } from '@bridle/protocol';
import type { SyncScorer } from './types';

/** Limits of {@link completedWithin}; each one left out is not checked. */
export interface CompletedWithinLimits {
  /** Most model calls. */
  steps?: number;
  /** Most tool calls. */
  toolCalls?: number;
  /** Most US dollars of the run (its priced usage; an unpriced run counts as 0). */
  costUsd?: number;
  /** Most milliseconds. */
  durationMs?: number;
}

/**
 * `completedWithin(limits?)`: 1 when the run completed and stayed within every limit given, else 0 with the
 * first limit it passed (or the status it ended with). Applies to every case.
 */
export function completedWithin(limits: CompletedWithinLimits = {}): SyncScorer {
  for (const [key, value] of Object.entries(limits)) {
    if (!['steps', 'toolCalls', 'costUsd', 'durationMs'].includes(key))
      throw new ConfigError(`completedWithin: unknown limit "${key}" (known: steps, toolCalls, costUsd, durationMs).`);
    if (typeof value !== 'number' || !(value >= 0))
      throw new ConfigError(`completedWithin: ${key} must be a non-negative number, got ${describeValue(value)}.`);
  }
  return {
    name: 'completedWithin',
    score(run) {
      if (run.status !== 'completed')
        return { score: 0, reason: `the run ended ${run.status}${run.error === undefined ? '' : `: ${run.error}`}` };
      const cost = run.usage.costUsd ?? 0;
      const checks: [boolean, string][] = [
        [limits.steps !== undefined && run.steps > limits.steps, `${run.steps} steps, over ${limits.steps}`],
        [
          limits.toolCalls !== undefined && run.toolCalls > limits.toolCalls,
          `${run.toolCalls} tool calls, over ${limits.toolCalls}`,
        ],
        [limits.costUsd !== undefined && cost > limits.costUsd, `$${cost.toFixed(6)}, over $${limits.costUsd}`],
        [
          limits.durationMs !== undefined && run.durationMs > limits.durationMs,
          `${run.durationMs} ms, over ${limits.durationMs} ms`,
        ],
      ];
      const over = checks.find(([passed]) => passed);
      if (over) return { score: 0, reason: `completed, but in ${over[1]}` };
      return { score: 1, reason: `completed in ${run.steps} ${run.steps === 1 ? 'step' : 'steps'}` };
    },
  };
}
