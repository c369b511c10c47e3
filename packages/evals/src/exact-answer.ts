import { preview } from './shorten';
import type { SyncScorer } from './types';

/**
 * `exactAnswer(expected?)`: 1 when the run's answer equals `expected` (default: the case's
 * `expected.answer`) after trimming whitespace at both ends, else 0. Does not apply to a case without one.
 */
export function exactAnswer(expected?: string): SyncScorer {
  return {
    name: 'exactAnswer',
    score(run, testCase) {
      const want = expected ?? testCase.expected?.answer;
      if (want === undefined) return undefined;
      const answer = run.answer ?? '';
      if (answer.trim() === want.trim()) return { score: 1, reason: `the answer is ${preview(want)}` };
      return {
        score: 0,
        reason:
          run.answer === undefined
            ? `no answer (the run ended ${run.status}); expected ${preview(want)}`
            : `the answer ${preview(answer)} is not ${preview(want)}`,
      };
    },
  };
}
