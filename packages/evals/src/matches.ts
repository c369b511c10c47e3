import { toRegExp } from './check-case';
import { preview } from './shorten';
import type { SyncScorer } from './types';

/**
 * `matches(pattern?)`: 1 when the answer matches the regular expression (default: the case's
 * `expected.regex`, `"pattern"` or `"/pattern/flags"`), else 0. Does not apply to a case without one.
 * Patterns come from the dataset, which the user wrote (trusted); the answer is matched whole.
 */
export function matches(pattern?: RegExp | string): SyncScorer {
  return {
    name: 'matches',
    score(run, testCase) {
      const given = pattern ?? testCase.expected?.regex;
      if (given === undefined) return undefined;
      const regex = typeof given === 'string' ? toRegExp(given) : given;
      // A global or sticky regex keeps lastIndex between calls: test on a fresh copy.
      const matched = new RegExp(regex.source, regex.flags.replace(/[gy]/g, '')).test(run.answer ?? '');
      return matched
        ? { score: 1, reason: `the answer matches ${String(regex)}` }
        : { score: 0, reason: `the answer ${preview(run.answer ?? '')} does not match ${String(regex)}` };
    },
  };
}
