import type { RunEvent } from './run-event';
import type { RunSignal } from './run-signal';
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
  /** The tenant of the run's first `run_start` (absent: tenant `default`). */
  tenant?: string;
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
  /**
   * What the run was asked, in one line: the first line of its first `run_start`'s `prompt` (or, for a run
   * started from `messages`, of the last message's text), leading blank lines skipped, trailing spaces cut,
   * at most {@link MAX_TITLE_CHARS} characters. Absent when the run had no text prompt.
   */
  title?: string;
  /** Who owns the run's running segment (its {@link RunLease} `owner`); absent when no process holds it. */
  owner?: string;
  /** ISO 8601 time the owner's lease ends unless renewed; absent when no process holds it. */
  leaseUntil?: string;
}

/**
 * A process's claim on a run's running segment. The owner renews it while the segment runs; each taking of
 * the lease (never a renewal) gives a larger `token`, and a store refuses an append that carries a token
 * smaller than the run's latest (a `StoreError` with code `store_fenced`), so a process that lost its lease
 * (paused, partitioned, presumed dead) can never write after the run's next owner.
 */
export interface RunLease {
  runId: string;
  /** Who holds it: a process's name (e.g. `host:pid:random`), shown by `listRuns`. */
  owner: string;
  /** The fencing token: 1 for the run's first lease, one more each time it is taken again. */
  token: number;
  /** ISO 8601 time the lease ends unless renewed, by the store's clock. */
  leaseUntil: string;
}

/** What `Store.acquireLease` is asked. */
export interface AcquireLeaseOptions {
  owner: string;
  /** How long the lease lasts unless renewed, in ms. */
  leaseMs: number;
  /**
   * Take the lease even while another owner's is unexpired. Only for a caller that knows that owner has
   * stopped (a queue that handed the job on after the worker's lock expired): the old owner is fenced.
   */
  force?: boolean;
}

/** What `Store.acquireLease` answers: the new lease, or who holds the run and until when. */
export type AcquireLeaseResult =
  | { acquired: true; lease: RunLease }
  | { acquired: false; owner: string; leaseUntil: string };

/** What `Store.claimOrphans` is asked. */
export interface ClaimOrphansOptions {
  owner: string;
  /** How long each claimed lease lasts unless renewed, in ms. */
  leaseMs: number;
  /** At most this many runs (default 10). */
  limit?: number;
}

/** Options of one `Store.appendEvents`. */
export interface AppendOptions {
  /**
   * The appending owner's {@link RunLease} `token`. The store refuses the whole batch (a `StoreError` with
   * code `store_fenced`, nothing written) when the run's lease was taken since with a larger token. Without
   * it the append is not fenced (callers that hold no lease, and stores written by older releases).
   */
  fencingToken?: number;
}

/** The longest `RunSummary.title`, in characters. */
export const MAX_TITLE_CHARS = 200;

/** A conversation kept between runs (the server's and `bridle chat`'s sessions). */
export interface StoredSession {
  id: string;
  messages: Message[];
  createdAt: string;
  updatedAt: string;
  /** The tenant the session belongs to (absent: tenant `default`). */
  tenant?: string;
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

/** The tenant of runs and sessions that name none (the CLI's, and the server's `BRIDLE_API_TOKEN`). */
export const DEFAULT_TENANT = 'default';

/** Filters of `listRuns`; newest first (by `updatedAt`). Every filter given must hold. */
export interface ListRunsQuery {
  status?: string;
  sessionId?: string;
  /** Only runs of this tenant; {@link DEFAULT_TENANT} also matches runs journaled without a tenant. */
  tenant?: string;
  /** Only runs of this model id (the first `run_start`'s `model`, exactly). */
  model?: string;
  /**
   * Only runs whose title line contains this text, ignoring the case of ASCII letters (the whole first line
   * of the prompt is searched, also past the {@link MAX_TITLE_CHARS} that `title` shows). 1 to 200 characters.
   */
  search?: string;
  /** Only runs created at or after this ISO 8601 time. */
  since?: string;
  /** At most this many rows (default 50). */
  limit?: number;
  /** Only runs updated strictly before this ISO 8601 time (for paging). */
  before?: string;
}

/** What `Store.readEvents` reads: the journal's events after one sequence. */
export interface ReadEventsQuery {
  /** Only events whose `sequence` is greater than this; `-1` reads from the first. */
  after: number;
  /** At most this many events (default 1000, at most 1000); read again after the last one for more. */
  limit?: number;
}

/** Filters of `listSessions`; newest first (by `updatedAt`). */
export interface ListSessionsQuery {
  limit?: number;
  /** Only sessions of this tenant; {@link DEFAULT_TENANT} also matches sessions saved without a tenant. */
  tenant?: string;
  before?: string;
}

/** The window of `Store.runsOverview`: runs created at or after `since` and before `until`. */
export interface RunsOverviewQuery {
  /** ISO 8601 time, inclusive. */
  since: string;
  /** ISO 8601 time, exclusive (default: no end). */
  until?: string;
  /** Only runs of this tenant; {@link DEFAULT_TENANT} also matches runs journaled without a tenant. Default: every run. */
  tenant?: string;
}

/**
 * Where the time and money went, over the runs created in a window, as the store's SQL computes it (never by
 * reading journals into the caller). Sub-agent runs (`agentTool`) are left out of the run counts, durations
 * and usage (their usage is in their parent's); their tool calls count among the tools.
 */
export interface RunsOverview {
  /** Runs by the hour they were created in (`2025-01-31T12:00:00.000Z`) and their status; hours in order. */
  runsPerHour: { hour: string; status: string; runs: number }[];
  /**
   * Durations of the runs that ended a segment (their summed `run_end` durations), in milliseconds:
   * nearest-rank percentiles (the smallest duration at or above that share of the runs).
   */
  duration: { runs: number; p50Ms?: number; p95Ms?: number };
  /** Tokens and cost by the UTC day a run was created in and its model; days in order, then models. */
  usagePerDay: {
    day: string;
    model: string;
    runs: number;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  }[];
  /** Tools by their mean `tool_end` duration, slowest first, at most 10 (ties by name). */
  slowestTools: { name: string; calls: number; errors: number; meanMs: number; maxMs: number }[];
}

/**
 * Durable storage for run journals and sessions. @bridle/core journals through any object of this shape
 * and never imports @bridle/store; `openStore(url)` of @bridle/store returns one (memory, SQLite, Postgres).
 */
export interface Store {
  /**
   * Appends events to a run's journal; the events are durable when the promise resolves. With
   * `options.fencingToken`, a stale token is refused (`store_fenced`) and nothing is written.
   */
  appendEvents(runId: string, events: RunEvent[], options?: AppendOptions): Promise<void>;
  /**
   * Takes the run's lease (creating the run's record when it has none) unless another owner's lease is
   * unexpired (then answers who holds it), giving a new, larger fencing token. Optional: a store without
   * it journals runs without owners (and without fencing).
   */
  acquireLease?(runId: string, options: AcquireLeaseOptions): Promise<AcquireLeaseResult>;
  /**
   * Extends the lease by `leaseMs` from now. Rejects with a `StoreError` of code `store_fenced` when the
   * lease was taken by another owner since (its token is stale): the caller must stop writing.
   */
  renewLease?(lease: RunLease, leaseMs: number): Promise<RunLease>;
  /** Gives the lease up (the run then has no owner; its token stays). Does nothing when the lease was taken since. */
  releaseLease?(lease: RunLease): Promise<void>;
  /**
   * Takes the leases of runs that are `running` and whose lease expired (their owner died), each for
   * `owner` with a new token; two processes claiming at once never get the same run. Runs that released
   * their lease (paused, ended) are not orphans.
   */
  claimOrphans?(options: ClaimOrphansOptions): Promise<RunLease[]>;
  readRun(runId: string): Promise<StoredRun | undefined>;
  /**
   * The journal's events after `query.after`, in `sequence` order, at most `query.limit`: what a follower of
   * a run that runs elsewhere reads as it goes, at a cost proportional to the new events (not to the whole
   * journal, as `readRun` is). An unknown run reads as `[]`. Optional: where a store lacks it, followers
   * read the whole run again.
   */
  readEvents?(runId: string, query: ReadEventsQuery): Promise<RunEvent[]>;
  listRuns(query?: ListRunsQuery): Promise<RunSummary[]>;
  /**
   * Aggregates over the runs created in a window (see {@link RunsOverview}), computed by the store. Optional:
   * the stores of @bridle/store have it; a server whose store lacks it answers its overview with 501.
   */
  runsOverview?(query: RunsOverviewQuery): Promise<RunsOverview>;
  /**
   * Sends a steering or cancel signal to run `runId` wherever it runs on this store (see `RunSignalChannel`).
   * Optional, with `listenRunSignals`: a store without them reaches runs of its own process only.
   */
  sendRunSignal?(runId: string, signal: RunSignal): Promise<void>;
  /** Listens for the signals sent to run `runId` through this store; resolves to the function that stops. */
  listenRunSignals?(runId: string, listener: (signal: RunSignal) => void): Promise<() => void>;
  getSession(id: string): Promise<StoredSession | undefined>;
  saveSession(session: StoredSession): Promise<void>;
  /** True when a session was deleted. */
  deleteSession(id: string): Promise<boolean>;
  listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]>;
  close(): Promise<void>;
}
