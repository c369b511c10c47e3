import type { QuotaLedger } from './quota-ledger';
import type { BudgetGate } from './types';

/** A tenant's limits that a {@link quotaGate} enforces (each absent: none). */
export interface QuotaLimits {
  /** Tokens (input plus output) per UTC day, across every run of the tenant. */
  tokensPerDay?: number;
  /** US dollars per UTC day, across every run of the tenant. */
  costUsdPerDay?: number;
  /** US dollars per run (this run's cost so far plus the next call's estimate). */
  costUsdPerRun?: number;
}

const dollars = (value: number) => `$${value.toFixed(6).replace(/\.?0+$/, '')}`;

/**
 * The budget gate of a run of `tenant`: before each model call it reserves the call's estimated tokens and
 * dollars in `ledger` (refused past `tokensPerDay` / `costUsdPerDay`), and checks `costUsdPerRun` against the
 * run's cost so far plus the estimate; after the call it reconciles the reservation with the real usage.
 * Every call is counted (a tenant's usage), with or without limits. A refusal's `stop` names the quota, the
 * use so far and the step, e.g. `Tenant acme reached its quota tokensPerDay (50 tokens; 48 used today, the
 * next call an estimated 9); stopped before model call 2.` Never throws; a ledger that fails rejects, and
 * core then stops the run saying so.
 */
export function quotaGate(ledger: QuotaLedger, tenant: string, quotas: QuotaLimits): BudgetGate {
  const limits = {
    ...(quotas.tokensPerDay === undefined ? {} : { tokensPerDay: quotas.tokensPerDay }),
    ...(quotas.costUsdPerDay === undefined ? {} : { costUsdPerDay: quotas.costUsdPerDay }),
  };
  return {
    async reserve({ step, usage, estimate }) {
      const runCost = usage.costUsd ?? 0;
      if (quotas.costUsdPerRun !== undefined && runCost + estimate.costUsd > quotas.costUsdPerRun) {
        return {
          stop: `The run cost ${dollars(runCost)} (and its next call an estimated ${dollars(estimate.costUsd)}), reaching tenant ${tenant}'s quota costUsdPerRun (${dollars(quotas.costUsdPerRun)}); stopped before model call ${step}.`,
        };
      }
      const reserved = await ledger.reserve(tenant, estimate, limits);
      if (!reserved.ok) {
        const what =
          reserved.quota === 'tokensPerDay'
            ? `tokensPerDay (${quotas.tokensPerDay} tokens; ${reserved.tokens} used today, the next call an estimated ${estimate.tokens})`
            : `costUsdPerDay (${dollars(quotas.costUsdPerDay ?? 0)}; ${dollars(reserved.costUsd)} used today)`;
        return { stop: `Tenant ${tenant} reached its quota ${what}; stopped before model call ${step}.` };
      }
      return {
        settle: (actual) =>
          ledger.add(tenant, {
            tokens: actual.inputTokens + actual.outputTokens - estimate.tokens,
            costUsd: (actual.costUsd ?? 0) - estimate.costUsd,
          }),
      };
    },
  };
}
