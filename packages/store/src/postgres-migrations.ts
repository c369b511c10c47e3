import type { Migration } from './migrations';

/**
 * The Postgres schema, by version; `{schema}` stands for the quoted schema name. Append new versions; never
 * edit a released one. Text columns compared for order use the "C" collation, so ISO times and ids sort by
 * their bytes, as in SQLite.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run events (the journal) and sessions',
    statements: [
      `CREATE TABLE {schema}.bridle_runs (
        run_id text COLLATE "C" PRIMARY KEY,
        status text COLLATE "C" NOT NULL,
        model text,
        session_id text COLLATE "C",
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL,
        last_sequence integer NOT NULL
      )`,
      'CREATE INDEX bridle_runs_by_time ON {schema}.bridle_runs (updated_at DESC, run_id DESC)',
      'CREATE INDEX bridle_runs_by_status ON {schema}.bridle_runs (status, updated_at DESC, run_id DESC)',
      'CREATE INDEX bridle_runs_by_session ON {schema}.bridle_runs (session_id, updated_at DESC, run_id DESC)',
      `CREATE TABLE {schema}.bridle_run_events (
        run_id text COLLATE "C" NOT NULL,
        sequence integer NOT NULL,
        type text NOT NULL,
        data text NOT NULL,
        PRIMARY KEY (run_id, sequence)
      )`,
      `CREATE TABLE {schema}.bridle_sessions (
        id text COLLATE "C" PRIMARY KEY,
        data text NOT NULL,
        message_count integer NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        updated_at text COLLATE "C" NOT NULL
      )`,
      'CREATE INDEX bridle_sessions_by_time ON {schema}.bridle_sessions (updated_at DESC, id DESC)',
    ],
  },
  {
    version: 2,
    description: 'run totals (steps, tool calls, usage, duration) for listRuns',
    statements: ['ALTER TABLE {schema}.bridle_runs ADD COLUMN totals text'],
  },
  {
    version: 3,
    description: "the tenant of runs and sessions (the server lists only a tenant's own)",
    statements: [
      'ALTER TABLE {schema}.bridle_runs ADD COLUMN tenant text COLLATE "C"',
      'CREATE INDEX bridle_runs_by_tenant ON {schema}.bridle_runs (tenant, updated_at DESC, run_id DESC)',
      'ALTER TABLE {schema}.bridle_sessions ADD COLUMN tenant text COLLATE "C"',
      'CREATE INDEX bridle_sessions_by_tenant ON {schema}.bridle_sessions (tenant, updated_at DESC, id DESC)',
    ],
  },
  {
    version: 4,
    description: 'run ownership: the lease owner, when the lease ends (ms since the epoch) and the fencing token',
    statements: [
      'ALTER TABLE {schema}.bridle_runs ADD COLUMN owner text',
      'ALTER TABLE {schema}.bridle_runs ADD COLUMN lease_until bigint',
      'ALTER TABLE {schema}.bridle_runs ADD COLUMN fencing_token integer NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 5,
    description:
      "each event's canonical time beside it: an append that neither starts nor ends a segment inserts its events only (the run's row, in five indexes, stays), and a running run's updated time is its last event's",
    statements: ['ALTER TABLE {schema}.bridle_run_events ADD COLUMN time text COLLATE "C"'],
  },
];
