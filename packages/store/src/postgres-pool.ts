import { ConfigError } from '@bridle/protocol';
import type { Pool } from 'pg';
import { postgresOpenError } from './postgres-faults';
import { migrate } from './postgres-schema';
import type { PostgresStoreOptions } from './postgres-store';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The pool of a Postgres store: the schema name checked, connected (bounded by `connectTimeoutMs`) and
 * migrated; failures are `ConfigError`s and leave no connection open.
 */
export async function openPostgresPool(options: PostgresStoreOptions): Promise<Pool> {
  if (!SCHEMA_NAME.test(options.schema)) {
    throw new ConfigError(
      `Postgres store at ${options.redacted}: schema ${JSON.stringify(options.schema)} is not a plain identifier; ` +
        'use letters, digits and underscores (at most 63, not starting with a digit)',
    );
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    // 'normal': every commit of the store's connections returns once the server has it, without waiting for
    // its WAL fsync; set per connection so that an append is one statement (no BEGIN; SET LOCAL round trip).
    ...(options.synchronous === 'normal' && { options: '-c synchronous_commit=off' }),
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs,
    allowExitOnIdle: true,
    application_name: 'bridle',
  });
  // A client whose connection drops emits 'error' (the pool re-emits it for idle clients) besides failing its
  // queries; without listeners that would crash the process. The failed query already reports it as a
  // StoreError, the pool drops the client, and the next operation connects again.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const client = await pool.connect();
    try {
      await migrate(client, options);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw postgresOpenError(error, options.redacted, options.connectTimeoutMs);
  }
  return pool;
}
