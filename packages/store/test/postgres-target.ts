import type { Store } from '@bridle/protocol';
import pg from 'pg';
import { type OpenStoreOptions, openStore } from '../src/index';
import { POSTGRES_MIGRATIONS } from '../src/postgres-migrations';

/** The test database: `BRIDLE_TEST_POSTGRES_URL`, default the machine's service (user postgres, db test). */
export const POSTGRES_URL = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why Postgres cannot be used for tests, or undefined when it answers. */
export async function postgresProblem(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

let counter = 0;
const schemas = new Set<string>();
const schemaOf = new WeakMap<Store, string>();

/** A schema name no other test run uses; dropped by `dropSchemas()`. */
export function newSchema(): string {
  const schema = `bridle_test_${process.pid}_${Date.now().toString(36)}_${++counter}`;
  schemas.add(schema);
  return schema;
}

/** Opens a store in a new schema of its own. */
export async function openInNewSchema(options: OpenStoreOptions = {}): Promise<Store> {
  const schema = newSchema();
  const store = await openStore(POSTGRES_URL, { connectTimeoutMs: 20_000, ...options, schema });
  schemaOf.set(store, schema);
  return store;
}

/** Opens the schema of `store` again. */
export async function reopenSchema(store: Store): Promise<Store> {
  const schema = schemaOf.get(store) as string;
  const again = await openStore(POSTGRES_URL, { connectTimeoutMs: 20_000, schema });
  schemaOf.set(again, schema);
  return again;
}

/** The schema `store` was opened on by this module. */
export function schemaFor(store: Store): string {
  return schemaOf.get(store) as string;
}

/** Runs SQL on the test database outside any store. */
export async function admin<T extends object = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A new schema as an earlier release left it: its migrations up to `version` applied by hand (no store opened),
 * each recorded as applied at `appliedAt`. Dropped by `dropSchemas()`.
 */
export async function schemaAtVersion(version: number, appliedAt: string): Promise<string> {
  const schema = newSchema();
  await admin(`CREATE SCHEMA "${schema}"`);
  await admin(`CREATE TABLE "${schema}".bridle_schema_version (version integer PRIMARY KEY, applied_at text NOT NULL)`);
  for (const migration of POSTGRES_MIGRATIONS.slice(0, version)) {
    for (const statement of migration.statements) await admin(statement.replaceAll('{schema}', `"${schema}"`));
    await admin(`INSERT INTO "${schema}".bridle_schema_version VALUES ($1, $2)`, [migration.version, appliedAt]);
  }
  return schema;
}

/** Drops every schema this module made. */
export async function dropSchemas(): Promise<void> {
  // One statement over one connection: a connection per schema took longer than a hook may on a busy machine.
  if (schemas.size > 0)
    await admin(`DROP SCHEMA IF EXISTS ${[...schemas].map((schema) => `"${schema}"`).join(', ')} CASCADE`);
  schemas.clear();
}
