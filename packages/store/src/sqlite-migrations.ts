import type { Migration } from './migrations';

/** The SQLite schema, by version. Append new versions; never edit a released one. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run events (the journal) and sessions',
    statements: [
      `CREATE TABLE bridle_runs (
        run_id TEXT PRIMARY KEY NOT NULL,
        status TEXT NOT NULL,
        model TEXT,
        session_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        last_sequence INTEGER NOT NULL
      )`,
      'CREATE INDEX bridle_runs_by_time ON bridle_runs (updated_at DESC, run_id DESC)',
      'CREATE INDEX bridle_runs_by_status ON bridle_runs (status, updated_at DESC, run_id DESC)',
      'CREATE INDEX bridle_runs_by_session ON bridle_runs (session_id, updated_at DESC, run_id DESC)',
      `CREATE TABLE bridle_run_events (
        run_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, sequence)
      )`,
      `CREATE TABLE bridle_sessions (
        id TEXT PRIMARY KEY NOT NULL,
        data TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      'CREATE INDEX bridle_sessions_by_time ON bridle_sessions (updated_at DESC, id DESC)',
    ],
  },
  {
    version: 2,
    description:
      'status and session indexes without updated_at, so an append rewrites one runs index, not three; run totals',
    statements: [
      'ALTER TABLE bridle_runs ADD COLUMN totals TEXT',
      'DROP INDEX bridle_runs_by_status',
      'DROP INDEX bridle_runs_by_session',
      'CREATE INDEX bridle_runs_by_status ON bridle_runs (status)',
      'CREATE INDEX bridle_runs_by_session ON bridle_runs (session_id)',
    ],
  },
];
