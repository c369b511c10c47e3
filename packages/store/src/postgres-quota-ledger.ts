import type { LedgerDay, LedgerReservation, QuotaLedger } from '@bridle/protocol';
import type { Pool } from 'pg';
import { DAY_MS, dayOf, MINUTE_MS, passedQuota, reservationOf, toMicros } from './quota-windows';

// The database's clock in ms: every window is taken from it, never from a process's own clock, so servers
// and workers on machines whose clocks disagree count into the same minute and UTC day.
const NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

function statements(table: string) {
  const upsert = (window: string) =>
    `INSERT INTO ${table} AS c (tenant, kind, win, tokens, micros, requests)
       SELECT $1::text, $2::text, (${NOW_MS}) / ${window}, $3::bigint, $4::bigint, $5::bigint
     ON CONFLICT (tenant, kind, win) DO UPDATE SET tokens = c.tokens + excluded.tokens,
       micros = c.micros + excluded.micros, requests = c.requests + excluded.requests`;
  return {
    // Created on first use, outside the store's numbered schema versions (the table is the ledger's alone).
    create: `CREATE TABLE IF NOT EXISTS ${table} (tenant text NOT NULL, kind text NOT NULL, win bigint NOT NULL,
      tokens bigint NOT NULL DEFAULT 0, micros bigint NOT NULL DEFAULT 0, requests bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (tenant, kind, win))`,
    prune: `DELETE FROM ${table} WHERE (kind = 'day' AND win < (${NOW_MS}) / ${DAY_MS} - 1)
      OR (kind = 'minute' AND win < (${NOW_MS}) / ${MINUTE_MS} - 1)`,
    countRequest: `${upsert(String(MINUTE_MS))} RETURNING c.requests, (c.win + 1) * ${MINUTE_MS} - ${NOW_MS} AS reset_ms`,
    // One statement: the row's lock makes the check and the addition atomic across every process. Its
    // WHERE refuses an update past a limit ($6 tokens, $7 micro-dollars; -1: none); a first insert is
    // checked by the caller (the amount alone against the limits).
    reserve: `${upsert(String(DAY_MS))}
      WHERE ($6::bigint < 0 OR c.tokens + excluded.tokens <= $6::bigint)
        AND ($7::bigint < 0 OR c.micros + excluded.micros <= $7::bigint)
      RETURNING c.tokens, c.micros, c.win, ${NOW_MS} AS now_ms`,
    day: `SELECT c.tokens, c.micros, clock.ms / ${DAY_MS} AS win, clock.ms AS now_ms
      FROM (SELECT ${NOW_MS} AS ms) clock
      LEFT JOIN ${table} c ON c.tenant = $1 AND c.kind = 'day' AND c.win = clock.ms / ${DAY_MS}`,
  };
}

type DayRow = { tokens: string | null; micros: string | null; win: string; now_ms: string };

/**
 * The quota ledger of a Postgres store's database: every server and worker on the database counts into one
 * table (`bridle_quota_counters` in the store's schema), each change one statement, windows from the
 * database's clock.
 */
export class PostgresQuotaLedger implements QuotaLedger {
  readonly #pool: Pool;
  readonly #sql: ReturnType<typeof statements>;

  private constructor(pool: Pool, table: string) {
    this.#pool = pool;
    this.#sql = statements(table);
  }

  /** A ledger on `pool` (its own, closed with the ledger), in `schema`; creates the table when missing. */
  static async open(pool: Pool, schema: string): Promise<PostgresQuotaLedger> {
    const ledger = new PostgresQuotaLedger(pool, `"${schema}".bridle_quota_counters`);
    // Two processes creating the table at once collide in the catalog (a duplicate key, a duplicate type or
    // table, depending on the moment): one transaction-scoped advisory lock per schema lets one create it.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtext('bridle_quota_counters'), hashtext($1))", [schema]);
      await client.query(ledger.#sql.create);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    await pool.query(ledger.#sql.prune);
    return ledger;
  }

  async countRequest(tenant: string): Promise<{ count: number; resetMs: number }> {
    const { rows } = await this.#pool.query<{ requests: string; reset_ms: string }>(this.#sql.countRequest, [
      tenant,
      'minute',
      0,
      0,
      1,
    ]);
    const row = rows[0] as { requests: string; reset_ms: string };
    return { count: Number(row.requests), resetMs: Number(row.reset_ms) };
  }

  async #day(tenant: string): Promise<{ row: { tokens: number; micros: number }; day: LedgerDay }> {
    const { rows } = await this.#pool.query<DayRow>(this.#sql.day, [tenant]);
    const found = rows[0] as DayRow;
    const row = { tokens: Number(found.tokens ?? 0), micros: Number(found.micros ?? 0) };
    return { row, day: dayOf(row, Number(found.win), Number(found.now_ms)) };
  }

  async #change(
    tenant: string,
    tokens: number,
    micros: number,
    limits: { tokensPerDay?: number; costUsdPerDay?: number } | undefined,
  ): Promise<LedgerReservation> {
    const amount = { tokens, micros };
    // The amount alone past a limit: refused before anything is written.
    if (limits !== undefined && passedQuota({ tokens: 0, micros: 0 }, amount, limits) !== undefined) {
      const { row, day } = await this.#day(tenant);
      return reservationOf(day, passedQuota(row, amount, limits));
    }
    const { rows } = await this.#pool.query<DayRow>(this.#sql.reserve, [
      tenant,
      'day',
      tokens,
      micros,
      0,
      limits?.tokensPerDay ?? -1,
      limits?.costUsdPerDay === undefined ? -1 : toMicros(limits.costUsdPerDay),
    ]);
    const changed = rows[0];
    if (changed !== undefined) {
      const row = { tokens: Number(changed.tokens), micros: Number(changed.micros) };
      return reservationOf(dayOf(row, Number(changed.win), Number(changed.now_ms)), undefined);
    }
    const { row, day } = await this.#day(tenant);
    return reservationOf(day, passedQuota(row, amount, limits ?? {}) ?? 'tokensPerDay');
  }

  reserve(
    tenant: string,
    amount: { tokens: number; costUsd: number },
    limits: { tokensPerDay?: number; costUsdPerDay?: number },
  ): Promise<LedgerReservation> {
    return this.#change(tenant, Math.round(amount.tokens), toMicros(amount.costUsd), limits);
  }

  async add(tenant: string, amount: { tokens: number; costUsd: number }): Promise<void> {
    await this.#change(tenant, Math.round(amount.tokens), toMicros(amount.costUsd), undefined);
  }

  async day(tenant: string): Promise<LedgerDay> {
    return (await this.#day(tenant)).day;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
