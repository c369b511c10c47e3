import type { RunEvent } from './run-event';
import type { RunState } from './run-state';
import type { Message, Usage } from './types';

/** A run as a store holds it: its journal and what is derived from it. */
export interface StoredRun {
  runId: string;
  /** The status of the last `run_end` event, or `'running'` when the run's last segment has none. */
  status: string;
  /** Every journaled event, in `sequence` order. */
  events: RunEvent[];
  /** The last `run_end`'s `state`, present when the run paused. */
  state?: RunState;
  /** ISO 8601 time of the first event appended. */
  createdAt: string;
  /** ISO 8601 time of the last event appended. */
  updatedAt: string;
}

/** One row of `listRuns`: a run without its events. */
export interface RunSummary {
  runId: string;
  status: string;
  /** The model id of the run's first `run_start`. */
  model?: string;
  /** The session the run belongs to, from its `run_start`. */
  sessionId?: string;
  createdAt: string;
  updatedAt: string;
  /** Steps of the run, from its last `run_end` (absent until a segment ended). */
  steps?: number;
  /** Tool calls of the run, from its last `run_end`. */
  toolCalls?: number;
  /** Tokens (and cost, when priced) summed over the run, from its last `run_end`. */
  usage?: Usage;
  /** Milliseconds the run has run: the `durationMs` of its segments' `run_end` events, summed. */
  durationMs?: number;
}

/** A conversation kept between runs (the server's and `bridle chat`'s sessions). */
export interface StoredSession {
  id: string;
  messages: Message[];
  createdAt: string;
  updatedAt: string;
  /** App-defined JSON (e.g. skill, model id). */
  meta?: Record<string, unknown>;
}

/** One row of `listSessions`: a session without its messages. */
export interface SessionSummary {
  id: string;
  /** Number of messages in the session. */
  messageCount: number;
  createdAt: string;
  updatedAt: string;
}

/** Filters of `listRuns`; newest first (by `updatedAt`). */
export interface ListRunsQuery {
  status?: string;
  sessionId?: string;
  /** At most this many rows (default 50). */
  limit?: number;
  /** Only runs updated strictly before this ISO 8601 time (for paging). */
  before?: string;
}

/** Filters of `listSessions`; newest first (by `updatedAt`). */
export interface ListSessionsQuery {
  limit?: number;
  before?: string;
}

/**
 * Durable storage for run journals and sessions. @bridle/core journals through any object of this shape
 * and never imports @bridle/store; `openStore(url)` of @bridle/store returns one (memory, SQLite, Postgres).
 */
export interface Store {
  /** Appends events to a run's journal; the events are durable when the promise resolves. */
  appendEvents(runId: string, events: RunEvent[]): Promise<void>;
  readRun(runId: string): Promise<StoredRun | undefined>;
  listRuns(query?: ListRunsQuery): Promise<RunSummary[]>;
  getSession(id: string): Promise<StoredSession | undefined>;
  saveSession(session: StoredSession): Promise<void>;
  /** True when a session was deleted. */
  deleteSession(id: string): Promise<boolean>;
  listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]>;
  close(): Promise<void>;
}
