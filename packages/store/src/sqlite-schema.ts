import type BetterSqlite3 from 'better-sqlite3';
import { pendingMigrations, SCHEMA_VERSION_TABLE } from './migrations';
import { SQLITE_MIGRATIONS } from './sqlite-migrations';

type Database = BetterSqlite3.Database;

/** The highest schema version applied to `db` (0 for a new file). */
function schemaVersion(db: Database): number {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(SCHEMA_VERSION_TABLE) as { name: string } | undefined;
  if (table === undefined) return 0;
  const row = db.prepare(`SELECT MAX(version) AS version FROM ${SCHEMA_VERSION_TABLE}`).get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/**
 * Applies pending migrations under SQLite's write lock (BEGIN IMMEDIATE), so two processes opening one new
 * file at once migrate it once. When nothing is pending it still writes a row and rolls it back: that is
 * how a read-only or locked file is found at open rather than at the first append (BEGIN IMMEDIATE alone
 * succeeds on a file SQLite opened read-only).
 */
export function migrate(db: Database, file: string): void {
  pendingMigrations(SQLITE_MIGRATIONS, schemaVersion(db), file);
  db.exec('BEGIN IMMEDIATE');
  try {
    const pending = pendingMigrations(SQLITE_MIGRATIONS, schemaVersion(db), file);
    if (pending.length === 0) {
      db.prepare(`INSERT INTO ${SCHEMA_VERSION_TABLE} (version, applied_at) VALUES (-1, 'write probe')`).run();
      db.exec('ROLLBACK');
      return;
    }
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)`,
    );
    const record = db.prepare(`INSERT INTO ${SCHEMA_VERSION_TABLE} (version, applied_at) VALUES (?, ?)`);
    for (const migration of pending) {
      for (const statement of migration.statements) db.exec(statement);
      record.run(migration.version, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
