/** A tenant's use in its current windows, as the ledger counts it. */
export interface LedgerDay {
  /** Tokens (input plus output) used in the current UTC day, reservations included. */
  tokens: number;
  /** US dollars used in the current UTC day, reservations included. */
  costUsd: number;
  /** Milliseconds until the day ends (when the day's counts start again from zero). */
  resetMs: number;
}

/** What {@link QuotaLedger.reserve} answers: the day after the reservation, or the quota it would pass. */
export type LedgerReservation =
  | ({ ok: true } & LedgerDay)
  | ({ ok: false; quota: 'tokensPerDay' | 'costUsdPerDay' } & LedgerDay);

/**
 * Counts each tenant's requests per minute and tokens and dollars per UTC day, where every process of a
 * deployment sees the same counts (Redis, or the store's database), or in this process alone (memory).
 * Dollars are counted in micro-dollars, so concurrent additions never lose a fraction.
 */
export interface QuotaLedger {
  /** Counts one request in the tenant's current minute: the count so far (this one included) and ms until the minute ends. */
  countRequest(tenant: string): Promise<{ count: number; resetMs: number }>;
  /**
   * Adds `tokens` and `costUsd` to the tenant's day unless that would pass a limit (`undefined`: none):
   * then nothing is added and the answer names the quota. Atomic: of two reservations that would both
   * pass together, one is refused.
   */
  reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number },
  ): Promise<LedgerReservation>;
  /** Adds (or with negative amounts gives back) use to the tenant's day, without a check. */
  add(tenant: string, amount: { tokens: number; costUsd: number }): Promise<void>;
  /** The tenant's day so far. */
  day(tenant: string): Promise<LedgerDay>;
  close(): Promise<void>;
}
