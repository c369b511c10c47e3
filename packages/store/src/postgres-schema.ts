import type { PoolClient } from 'pg';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations';
import { POSTGRES_MIGRATIONS } from './postgres-migrations';

/** A Postgres identifier, quoted. */
export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** The highest schema version applied in `schema` (0 for a new one). */
async function schemaVersion(client: PoolClient, schema: string): Promise<number> {
  const table = await client.query<{ exists: string | null }>('SELECT to_regclass($1) AS exists', [
    `${quote(schema)}.${SCHEMA_VERSION_TABLE}`,
  ]);
  if (table.rows[0]?.exists == null) return 0;
  const result = await client.query<{ version: number | null }>(
    `SELECT MAX(version) AS version FROM ${quote(schema)}.${SCHEMA_VERSION_TABLE}`,
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Applies pending migrations inside one transaction holding an advisory lock keyed by the schema, so any
 * number of processes may open one database at once: one migrates, the others wait and find nothing to do.
 */
export async function migrate(client: PoolClient, options: { schema: string; redacted: string }): Promise<void> {
  const where = `${options.redacted} (schema ${options.schema})`;
  if (pendingMigrations(POSTGRES_MIGRATIONS, await schemaVersion(client, options.schema), where).length === 0) return;
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('bridle_store'), hashtext($1))", [options.schema]);
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [options.schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quote(options.schema)}`);
    const pending = pendingMigrations(POSTGRES_MIGRATIONS, await schemaVersion(client, options.schema), where);
    if (pending.length > 0) {
      const table = `${quote(options.schema)}.${SCHEMA_VERSION_TABLE}`;
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (version integer PRIMARY KEY, applied_at text NOT NULL)`);
      for (const migration of pending) {
        for (const statement of migration.statements) {
          await client.query(statement.replaceAll('{schema}', quote(options.schema)));
        }
        await client.query(`INSERT INTO ${table} (version, applied_at) VALUES ($1, $2)`, [
          migration.version,
          new Date().toISOString(),
        ]);
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
