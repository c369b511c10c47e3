import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../server-context';
import { callerOf } from '../tenant-auth';

/** The answer of `GET /api/usage`. */
export interface UsageResponse {
  tenant: string;
  /** The key that asked (absent on a server without keys). */
  key?: string;
  /** The current UTC day: tokens and dollars used by the tenant's runs (reservations of calls under way included). */
  day: { tokens: number; costUsd: number; resetsAt: string };
  /** The tenant's quotas from BRIDLE_API_KEYS_FILE (an absent one: no limit). */
  limits: { requestsPerMinute?: number; tokensPerDay?: number; costUsdPerDay?: number; costUsdPerRun?: number };
}

const DAY_MS = 86_400_000;

/**
 * The UTC midnight that ends the ledger's day, `resetMs` from now. The ledger read `resetMs` on its own clock
 * (Redis's, the database's) a round trip ago: rounded to the nearest midnight, every process names the same
 * one (not a second past it, as rounding up to the second did when the trip crossed a second).
 */
function dayEnd(resetMs: number): string {
  return new Date(Math.round((Date.now() + resetMs) / DAY_MS) * DAY_MS).toISOString();
}

/**
 * `GET /api/usage`: the caller's tenant's use today and its quotas, as counted by the ledger every server
 * process shares (Redis with BRIDLE_REDIS_URL, else the SQLite file or Postgres database of BRIDLE_STORE, else
 * this process). Any valid key may read its own tenant's.
 */
export function registerUsageRoute(app: FastifyInstance, context: ServerContext): void {
  app.get(
    '/usage',
    { schema: { summary: "The caller's tenant's usage today and its quotas", tags: ['api'] } },
    async (request): Promise<UsageResponse> => {
      const caller = callerOf(request);
      const day = await context.ledger.day(caller.tenant);
      return {
        tenant: caller.tenant,
        ...(caller.keyName === undefined ? {} : { key: caller.keyName }),
        day: {
          tokens: day.tokens,
          costUsd: day.costUsd,
          resetsAt: dayEnd(day.resetMs),
        },
        limits: { ...context.auth.quotasOf(caller.tenant) },
      };
    },
  );
}
