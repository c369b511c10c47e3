import { ConfigError, type QuotaLedger } from '@bridle/protocol';
import { parseStoreUrl } from './parse-store-url';
import { redactUrl } from './redact-url';

/** Options of {@link openQuotaLedger}. */
export interface OpenQuotaLedgerOptions {
  /** Folder a relative SQLite path is resolved against; default `process.cwd()`. */
  cwd?: string;
  /** Postgres: bound on connecting, in ms; default 10000 (or the URL's `connect_timeout`). */
  connectTimeoutMs?: number;
}

/**
 * Opens the tenants' quota counters in the database of store `url`, shared by every process that opens the
 * same SQLite file or Postgres database (a deployment without Redis): `bridle_quota_counters`, created when
 * missing, with minutes and UTC days from the database's clock (Postgres's `clock_timestamp()`; SQLite's
 * `'now'`, the clock of the one machine its processes share). It has its own connection: close it apart
 * from the store. Throws `ConfigError` for `memory:` (one process: use core's `MemoryQuotaLedger`), an
 * unknown scheme, or a database that cannot be reached.
 */
export async function openQuotaLedger(url: string, options: OpenQuotaLedgerOptions = {}): Promise<QuotaLedger> {
  const location = parseStoreUrl(url, options.cwd);
  if (location.kind === 'memory')
    throw new ConfigError(
      "openQuotaLedger: a memory: store lives in one process; count in it with @bridle/core's MemoryQuotaLedger.",
    );
  if (location.kind === 'sqlite') {
    const [{ default: Database }, { SqliteQuotaLedger }] = await Promise.all([
      import('better-sqlite3'),
      import('./sqlite-quota-ledger'),
    ]);
    try {
      const db = new Database(location.path, { fileMustExist: false });
      db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${location.busyTimeoutMs ?? 5000}`);
      return new SqliteQuotaLedger(db);
    } catch (error) {
      throw new ConfigError(
        `openQuotaLedger: cannot open the SQLite file ${location.path}: ${(error as Error).message}. Check the store URL and the file's permissions.`,
      );
    }
  }
  const schema = location.schema ?? 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new ConfigError(
      `openQuotaLedger: schema ${JSON.stringify(schema)} is not a plain identifier; use letters, digits and underscores.`,
    );
  const [{ default: pg }, { PostgresQuotaLedger }] = await Promise.all([
    import('pg'),
    import('./postgres-quota-ledger'),
  ]);
  const pool = new pg.Pool({
    connectionString: location.connectionString,
    max: 2,
    connectionTimeoutMillis: options.connectTimeoutMs ?? location.connectTimeoutMs ?? 10_000,
    allowExitOnIdle: true,
    application_name: 'bridle-quotas',
  });
  pool.on('error', () => {});
  try {
    return await PostgresQuotaLedger.open(pool, schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new ConfigError(
      `openQuotaLedger: cannot use the Postgres store at ${redactUrl(url)}: ${(error as Error).message}. Start Postgres or fix the URL; the store's schema must exist (open the store first).`,
    );
  }
}
