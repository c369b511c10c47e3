import { type BudgetGate, type QuotaLedger, quotaGate } from '@bridle/core';
import type { JobQuotas } from '@bridle/queue';
import type { ServerContext } from './server-context';
import { ServerError } from './server-error';
import type { Caller } from './tenant-auth';
import type { TenantQuotas } from './tenant-keys';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const dollars = (value: number) => `$${value.toFixed(6).replace(/\.?0+$/, '')}`;

/** True when the tenant has a quota of its requests or its days (checked on requests). */
export function hasRequestQuotas(quotas: TenantQuotas): boolean {
  return (
    quotas.requestsPerMinute !== undefined || quotas.tokensPerDay !== undefined || quotas.costUsdPerDay !== undefined
  );
}

/**
 * Checks a request against its tenant's quotas: `requestsPerMinute` (every request counts), and for a request
 * that starts or resumes a run, whether today's `tokensPerDay` or `costUsdPerDay` is used up. Throws
 * `ServerError('quota_exceeded')` (429) with `Retry-After` until the window ends.
 */
export async function checkRequestQuotas(
  ledger: QuotaLedger,
  caller: Caller,
  quotas: TenantQuotas,
  startsRun: boolean,
): Promise<void> {
  if (quotas.requestsPerMinute !== undefined) {
    const { count, resetMs } = await ledger.countRequest(caller.tenant);
    if (count > quotas.requestsPerMinute) {
      throw new ServerError(
        'quota_exceeded',
        `Tenant ${caller.tenant} reached its quota requestsPerMinute (${quotas.requestsPerMinute}): retry in ${seconds(resetMs)} s.`,
        { retryAfterSeconds: seconds(resetMs) },
      );
    }
  }
  if (!startsRun || (quotas.tokensPerDay === undefined && quotas.costUsdPerDay === undefined)) return;
  const day = await ledger.day(caller.tenant);
  const used =
    quotas.tokensPerDay !== undefined && day.tokens >= quotas.tokensPerDay
      ? `tokensPerDay (${quotas.tokensPerDay} tokens; ${day.tokens} used today)`
      : quotas.costUsdPerDay !== undefined && day.costUsd >= quotas.costUsdPerDay
        ? `costUsdPerDay (${dollars(quotas.costUsdPerDay)}; ${dollars(day.costUsd)} used today)`
        : undefined;
  if (used !== undefined) {
    throw new ServerError(
      'quota_exceeded',
      `Tenant ${caller.tenant} reached its quota ${used}: no new run starts until the UTC day ends, in ${seconds(day.resetMs)} s.`,
      { retryAfterSeconds: seconds(day.resetMs) },
    );
  }
}

/** The budget gate of a run of `caller`'s tenant (core's {@link quotaGate} on the server's ledger). */
export function tenantGate(ledger: QuotaLedger, caller: Caller, quotas: TenantQuotas): BudgetGate {
  return quotaGate(ledger, caller.tenant, quotas);
}

/**
 * The `quotas` of a queued job of `tenant` (spread into its spec): with named keys, the tenant's per-day and
 * per-run quotas, which the worker checks before each model call in the counters it shares with the servers
 * (`{}` still counts the run's use); without named keys, nothing (as in process: no gate).
 */
export function jobQuotas(context: ServerContext, tenant: string): { quotas?: JobQuotas } {
  if (!context.auth.named) return {};
  const { tokensPerDay, costUsdPerDay, costUsdPerRun } = context.auth.quotasOf(tenant);
  return {
    quotas: {
      ...(tokensPerDay === undefined ? {} : { tokensPerDay }),
      ...(costUsdPerDay === undefined ? {} : { costUsdPerDay }),
      ...(costUsdPerRun === undefined ? {} : { costUsdPerRun }),
    },
  };
}
