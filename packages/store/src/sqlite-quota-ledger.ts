import type { LedgerDay, LedgerReservation, QuotaLedger } from '@bridle/protocol';
import type { Database } from 'better-sqlite3';
import { DAY_MS, dayOf, MINUTE_MS, passedQuota, reservationOf, toMicros } from './quota-windows';

// Created on first use, outside the store's numbered schema versions: the table is the ledger's alone, and
// a store of an older release simply never reads it.
const CREATE = `CREATE TABLE IF NOT EXISTS bridle_quota_counters (
  tenant TEXT NOT NULL, kind TEXT NOT NULL, win INTEGER NOT NULL,
  tokens INTEGER NOT NULL DEFAULT 0, micros INTEGER NOT NULL DEFAULT 0, requests INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, kind, win)) WITHOUT ROWID`;
// The database's clock in ms (every process on one SQLite file reads the same machine's clock through it).
const NOW = "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS ms";

/**
 * The quota ledger of a SQLite store's file: every process that opens the file counts into one table, each
 * change in an immediate transaction (two processes reserving at once are serialised by SQLite's lock).
 */
export class SqliteQuotaLedger implements QuotaLedger {
  readonly #db: Database;
  readonly #now: () => number;
  readonly #get: (tenant: string, kind: string, win: number) => { tokens: number; micros: number; requests: number };
  readonly #add: (tenant: string, kind: string, win: number, tokens: number, micros: number, requests: number) => void;
  readonly #reserve: (tenant: string, tokens: number, micros: number, limits: ReserveLimits) => LedgerReservation;

  constructor(db: Database) {
    this.#db = db;
    db.exec(CREATE);
    const now = db.prepare(NOW);
    this.#now = () => (now.get() as { ms: number }).ms;
    const get = db.prepare(
      'SELECT tokens, micros, requests FROM bridle_quota_counters WHERE tenant = ? AND kind = ? AND win = ?',
    );
    this.#get = (tenant, kind, win) =>
      get.get(tenant, kind, win) as { tokens: number; micros: number; requests: number };
    const add = db.prepare(
      'INSERT INTO bridle_quota_counters (tenant, kind, win, tokens, micros, requests) VALUES (?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (tenant, kind, win) DO UPDATE SET tokens = tokens + excluded.tokens, ' +
        'micros = micros + excluded.micros, requests = requests + excluded.requests',
    );
    this.#add = (tenant, kind, win, tokens, micros, requests) => {
      add.run(tenant, kind, win, tokens, micros, requests);
    };
    const reserve = db.transaction((tenant: string, tokens: number, micros: number, limits: ReserveLimits) => {
      const nowMs = this.#now();
      const window = Math.floor(nowMs / DAY_MS);
      const row = this.#get(tenant, 'day', window) ?? { tokens: 0, micros: 0 };
      const quota = limits === undefined ? undefined : passedQuota(row, { tokens, micros }, limits);
      if (quota !== undefined) return reservationOf(dayOf(row, window, nowMs), quota);
      this.#add(tenant, 'day', window, tokens, micros, 0);
      return reservationOf(
        dayOf({ tokens: row.tokens + tokens, micros: row.micros + micros }, window, nowMs),
        undefined,
      );
    });
    this.#reserve = (tenant, tokens, micros, limits) => reserve.immediate(tenant, tokens, micros, limits);
    // Windows older than yesterday are never read again.
    const nowMs = this.#now();
    db.prepare(
      "DELETE FROM bridle_quota_counters WHERE (kind = 'day' AND win < ?) OR (kind = 'minute' AND win < ?)",
    ).run(Math.floor(nowMs / DAY_MS) - 1, Math.floor(nowMs / MINUTE_MS) - 1);
  }

  async countRequest(tenant: string): Promise<{ count: number; resetMs: number }> {
    const counted = this.#db.transaction(() => {
      const nowMs = this.#now();
      const window = Math.floor(nowMs / MINUTE_MS);
      this.#add(tenant, 'minute', window, 0, 0, 1);
      return { count: this.#get(tenant, 'minute', window).requests, resetMs: (window + 1) * MINUTE_MS - nowMs };
    });
    return counted.immediate();
  }

  async reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number },
  ): Promise<LedgerReservation> {
    return this.#reserve(tenant, Math.round(amount.tokens), toMicros(amount.costUsd), limits);
  }

  async add(tenant: string, amount: { tokens: number; costUsd: number }): Promise<void> {
    this.#reserve(tenant, Math.round(amount.tokens), toMicros(amount.costUsd), undefined);
  }

  async day(tenant: string): Promise<LedgerDay> {
    const nowMs = this.#now();
    const window = Math.floor(nowMs / DAY_MS);
    return dayOf(this.#get(tenant, 'day', window), window, nowMs);
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

type ReserveLimits = { tokensPerDay?: number; costUsdPerDay?: number } | undefined;
