import { ConfigError } from '@bridle/protocol';

/** One schema change: statements run in one transaction, then `version` is recorded in the version table. */
export interface Migration {
  version: number;
  description: string;
  statements: readonly string[];
}

/** The name of the table that records applied migrations (one row per version). */
export const SCHEMA_VERSION_TABLE = 'bridle_schema_version';

/** The highest version in `migrations` (what this @bridle/store writes). */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((highest, migration) => Math.max(highest, migration.version), 0);
}

/**
 * The migrations still to apply over a database at `found`; throws `ConfigError` when `found` is newer than
 * any this @bridle/store knows (a newer Bridle wrote it): nothing is changed then, so no data is lost.
 */
export function pendingMigrations(migrations: readonly Migration[], found: number, where: string): Migration[] {
  const known = latestVersion(migrations);
  if (found > known) {
    throw new ConfigError(
      `the store at ${where} has schema version ${found}, newer than version ${known} that this @bridle/store ` +
        'knows: a newer Bridle wrote it. Upgrade Bridle (and @bridle/store) to open it, or use another store; ' +
        'nothing was changed',
    );
  }
  return migrations.filter((migration) => migration.version > found).sort((a, b) => a.version - b.version);
}
