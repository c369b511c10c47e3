import type { LedgerDay, LedgerReservation, QuotaLedger } from '@bridle/protocol';

export type { LedgerDay, LedgerReservation, QuotaLedger };

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Dollars as whole micro-dollars (what the ledgers add). */
export const toMicros = (dollars: number) => Math.round(dollars * 1_000_000);

/**
 * The ledger of one process: counts in memory, windows from `now` (injectable: tests move the clock
 * across a day's end). A deployment of several processes sets `BRIDLE_REDIS_URL` to share one.
 */
export class MemoryQuotaLedger implements QuotaLedger {
  readonly #now: () => number;
  readonly #minutes = new Map<string, { window: number; count: number }>();
  readonly #days = new Map<string, { window: number; tokens: number; micros: number }>();

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async countRequest(tenant: string): Promise<{ count: number; resetMs: number }> {
    const now = this.#now();
    const window = Math.floor(now / MINUTE_MS);
    let entry = this.#minutes.get(tenant);
    if (entry === undefined || entry.window !== window) {
      entry = { window, count: 0 };
      this.#minutes.set(tenant, entry);
    }
    entry.count += 1;
    return { count: entry.count, resetMs: (window + 1) * MINUTE_MS - now };
  }

  #entry(tenant: string, now: number) {
    const window = Math.floor(now / DAY_MS);
    let entry = this.#days.get(tenant);
    if (entry === undefined || entry.window !== window) {
      entry = { window, tokens: 0, micros: 0 };
      this.#days.set(tenant, entry);
    }
    return entry;
  }

  #view(entry: { window: number; tokens: number; micros: number }, now: number): LedgerDay {
    return { tokens: entry.tokens, costUsd: entry.micros / 1_000_000, resetMs: (entry.window + 1) * DAY_MS - now };
  }

  async reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number },
  ): Promise<LedgerReservation> {
    const now = this.#now();
    const entry = this.#entry(tenant, now);
    const micros = toMicros(amount.costUsd);
    if (limits.tokensPerDay !== undefined && entry.tokens + amount.tokens > limits.tokensPerDay)
      return { ok: false, quota: 'tokensPerDay', ...this.#view(entry, now) };
    if (limits.costUsdPerDay !== undefined && entry.micros + micros > toMicros(limits.costUsdPerDay))
      return { ok: false, quota: 'costUsdPerDay', ...this.#view(entry, now) };
    entry.tokens += amount.tokens;
    entry.micros += micros;
    return { ok: true, ...this.#view(entry, now) };
  }

  async add(tenant: string, amount: { tokens: number; costUsd: number }): Promise<void> {
    const entry = this.#entry(tenant, this.#now());
    entry.tokens += amount.tokens;
    entry.micros += toMicros(amount.costUsd);
  }

  async day(tenant: string): Promise<LedgerDay> {
    const now = this.#now();
    return this.#view(this.#entry(tenant, now), now);
  }

  async close(): Promise<void> {}
}
