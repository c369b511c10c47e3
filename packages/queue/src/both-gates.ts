import type { BudgetGate, BudgetReservation } from '@bridle/core';

/**
 * Two budget gates as one: `first` is asked, then (when it lets the call go) `second`; a stop of the second
 * gives the first's reservation back (settled with zero usage), and after the call both are settled.
 */
export function bothGates(first: BudgetGate, second: BudgetGate): BudgetGate {
  return {
    async reserve(request): Promise<BudgetReservation> {
      const one = await first.reserve(request);
      if ('stop' in one) return one;
      const two = await second.reserve(request);
      if ('stop' in two) {
        await one.settle({ inputTokens: 0, outputTokens: 0 });
        return two;
      }
      return {
        async settle(actual) {
          await Promise.allSettled([one.settle(actual), two.settle(actual)]);
        },
      };
    },
  };
}
