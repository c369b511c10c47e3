import type { LedgerDay, LedgerReservation } from '@bridle/protocol';

/** A UTC day and a minute, in ms. */
export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

/** Dollars as whole micro-dollars (what the ledgers add, so concurrent additions never lose a fraction). */
export const toMicros = (dollars: number) => Math.round(dollars * 1_000_000);

/** A day row of the counters table as a {@link LedgerDay}; `nowMs` is the database's clock. */
export function dayOf(row: { tokens: number; micros: number } | undefined, window: number, nowMs: number): LedgerDay {
  return {
    tokens: Number(row?.tokens ?? 0),
    costUsd: Number(row?.micros ?? 0) / 1_000_000,
    resetMs: (window + 1) * DAY_MS - nowMs,
  };
}

/** The quota a reservation of `amount` on `day` would pass, if any. */
export function passedQuota(
  day: { tokens: number; micros: number },
  amount: { tokens: number; micros: number },
  limits: { tokensPerDay?: number; costUsdPerDay?: number },
): 'tokensPerDay' | 'costUsdPerDay' | undefined {
  if (limits.tokensPerDay !== undefined && day.tokens + amount.tokens > limits.tokensPerDay) return 'tokensPerDay';
  if (limits.costUsdPerDay !== undefined && day.micros + amount.micros > toMicros(limits.costUsdPerDay))
    return 'costUsdPerDay';
  return undefined;
}

/** A reservation's answer from the day after it (ok) or as it stands (refused). */
export function reservationOf(day: LedgerDay, quota: 'tokensPerDay' | 'costUsdPerDay' | undefined): LedgerReservation {
  return quota === undefined ? { ok: true, ...day } : { ok: false, quota, ...day };
}
