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
  {
    version: 3,
    description: "the tenant of runs and sessions (the server lists only a tenant's own)",
    statements: [
      'ALTER TABLE bridle_runs ADD COLUMN tenant TEXT',
      'CREATE INDEX bridle_runs_by_tenant ON bridle_runs (tenant)',
      'ALTER TABLE bridle_sessions ADD COLUMN tenant TEXT',
      'CREATE INDEX bridle_sessions_by_tenant ON bridle_sessions (tenant)',
    ],
  },
  {
    version: 4,
    description: 'run ownership: the lease owner, when the lease ends (ms since the epoch) and the fencing token',
    statements: [
      'ALTER TABLE bridle_runs ADD COLUMN owner TEXT',
      'ALTER TABLE bridle_runs ADD COLUMN lease_until INTEGER',
      'ALTER TABLE bridle_runs ADD COLUMN fencing_token INTEGER NOT NULL DEFAULT 0',
    ],
  },
  {
    version: 5,
    description: 'run signals (steering and cancel) that processes on one file poll for',
    statements: [
      `CREATE TABLE bridle_run_signals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        data TEXT NOT NULL,
        created_at INTEGER NOT NULL
      )`,
    ],
  },
  {
    version: 6,
    description:
      "each event's canonical time beside it: an append that neither starts nor ends a segment leaves the run's row alone, and a running run's updated time is its last event's",
    statements: ['ALTER TABLE bridle_run_events ADD COLUMN time TEXT'],
  },
  {
    version: 7,
    description:
      'the by-time indexes of runs and sessions in ascending order (read backwards for newest first): a new row goes at the right end, where SQLite appends to a full page cheaply, instead of at the left end, where every page split rebalances and leaves pages half full',
    statements: [
      'DROP INDEX bridle_runs_by_time',
      'CREATE INDEX bridle_runs_by_time ON bridle_runs (updated_at, run_id)',
      'DROP INDEX bridle_sessions_by_time',
      'CREATE INDEX bridle_sessions_by_time ON bridle_sessions (updated_at, id)',
    ],
  },
  {
    version: 8,
    description:
      "runs find their session by the session's key, a number given in order, not by its id: the server's session ids are random, so the by-session index took a page of its own per new session's run; a session with runs but no saved transcript (message_count -1) keeps the key for them",
    statements: [
      'ALTER TABLE bridle_sessions ADD COLUMN key INTEGER',
      'ALTER TABLE bridle_runs ADD COLUMN session_key INTEGER',
      "INSERT INTO bridle_sessions (id, data, message_count, created_at, updated_at) SELECT session_id, '', -1, min(created_at), min(created_at) " +
        'FROM bridle_runs WHERE session_id IS NOT NULL AND session_id NOT IN (SELECT id FROM bridle_sessions) GROUP BY session_id',
      'UPDATE bridle_sessions SET key = rowid WHERE id IN (SELECT session_id FROM bridle_runs WHERE session_id IS NOT NULL)',
      'UPDATE bridle_runs SET session_key = (SELECT key FROM bridle_sessions WHERE bridle_sessions.id = bridle_runs.session_id) ' +
        'WHERE session_id IS NOT NULL',
      'DROP INDEX bridle_runs_by_session',
      'CREATE INDEX bridle_runs_by_session ON bridle_runs (session_key)',
    ],
  },
];
