import { preview } from './shorten';
import type { SyncScorer } from './types';

/**
 * `contains(text?)`: the share of the expected strings (default: the case's `expected.contains`, one or
 * several) the answer contains, case-sensitively; 1 when all are there. Does not apply to a case without any.
 */
export function contains(text?: string | readonly string[]): SyncScorer {
  return {
    name: 'contains',
    score(run, testCase) {
      const given = text ?? testCase.expected?.contains;
      if (given === undefined) return undefined;
      const wanted = typeof given === 'string' ? [given] : [...given];
      if (wanted.length === 0) return undefined;
      const answer = run.answer ?? '';
      const missing = wanted.filter((part) => !answer.includes(part));
      const score = (wanted.length - missing.length) / wanted.length;
      if (missing.length === 0)
        return { score, reason: `the answer contains ${wanted.map((part) => preview(part, 60)).join(', ')}` };
      return {
        score,
        reason: `the answer lacks ${missing.map((part) => preview(part, 60)).join(', ')} (${wanted.length - missing.length} of ${wanted.length} found)`,
      };
    },
  };
}
