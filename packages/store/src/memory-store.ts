import type {
  AcquireLeaseOptions,
  AcquireLeaseResult,
  AppendOptions,
  ClaimOrphansOptions,
  ListRunsQuery,
  ListSessionsQuery,
  ReadEventsQuery,
  RunEvent,
  RunLease,
  RunSignal,
  RunSummary,
  RunsOverview,
  RunsOverviewQuery,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from '@bridle/protocol';
import { DEFAULT_TENANT } from '@bridle/protocol';
import { checkId } from './check-id';
import { checkEventsQuery, checkOverviewQuery, checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeEvents, decodeRun } from './decode-run';
import type { KeptEvent } from './kept-event';
import { checkAcquire, checkClaim, checkRenew, checkToken, fencedError, leaseOf } from './lease-rules';
import type { StoreLimits } from './limits';
import { firstAfter, Journaled, NO_ROWS } from './memory-journal';
import { memoryOverview } from './memory-overview';
import { eventOf, journalRow, type MemoryRow, rowOf, TextRow } from './memory-row';
import { planAppend, type RunRow } from './plan-append';
import { prepareEvents } from './prepare-events';
import { decodeSession, type PreparedSession, prepareSession } from './prepare-session';
import { asciiLower, firstLine, promptOf, TITLE_LINE_CHARS, titleOf } from './run-title';
import { checkSignal, SignalHub } from './signal-hub';
import { toRunSummary } from './summaries';

/** A run's lease: the latest token, and the holder while one holds it. */
interface MemoryLease {
  token: number;
  holder?: { owner: string; untilMs: number };
}

interface MemoryRun {
  row: RunRow;
  /** In sequence order. */
  journal: MemoryRow[];
  /** The first line of the first `run_start`'s prompt (what the SQL stores compute from the journal). */
  line?: string;
  /** True once a `run_start` is journaled (only the first one names the run). */
  started?: boolean;
  /** The run's lease once an append found one: the same object as in the leases map while the run is kept. */
  lease?: MemoryLease;
}

/** What a write that is done resolves to (one promise for all: nobody can change a resolved promise). */
const DONE: Promise<void> = Promise.resolve();

/**
 * A store in this process's memory (`memory:`): for tests and throwaway runs. It keeps each event as what its
 * JSON says (a copy, see `jsonCopy`, or its JSON text) and sessions as JSON text, so it behaves like the
 * database stores (later changes to an appended object do not reach it, and what is read back is a fresh
 * copy). Each `openStore('memory:')` is a new, empty store.
 * It holds at most `maxRuns` journals: a new run beyond that evicts the run appended to least recently that
 * is not `running` (a long-lived server on `memory:` does not grow without end). Running runs are never
 * evicted, so the count passes `maxRuns` only while that many runs are running at once. Likewise it holds
 * at most `maxSessions` sessions: saving one beyond that forgets the session saved least recently.
 */
export class MemoryStore implements Store {
  readonly #limits: StoreLimits;
  readonly #maxRuns: number;
  readonly #maxSessions: number;
  readonly #runs = new Map<string, MemoryRun>();
  readonly #leases = new Map<string, MemoryLease>();
  readonly #sessions = new Map<string, PreparedSession>();
  readonly #signals = new SignalHub();
  readonly #journaled = new Journaled();
  // The run set last into the runs map (at the end of its order), until it is evicted: a run that ends while it
  // is still there has no place to move to.
  #newest: string | undefined;
  #closed = false;

  constructor(limits: StoreLimits, bounds: { maxRuns: number; maxSessions: number }) {
    this.#limits = limits;
    this.#maxRuns = bounds.maxRuns;
    this.#maxSessions = bounds.maxSessions;
  }

  // The methods a journaled run calls (appends and its lease) are not async functions: their work is synchronous,
  // and an async function's frame was a measurable part of a journaled run's garbage. They still never throw:
  // a failure is a rejection, as from an async function.
  appendEvents(runId: string, events: RunEvent[], options?: AppendOptions): Promise<void> {
    try {
      this.#append(runId, events, options);
      return DONE;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #append(runId: string, events: RunEvent[], options: AppendOptions | undefined): void {
    this.#open('appendEvents');
    const prepared = prepareEvents(runId, events, this.#limits, true);
    if (prepared.length === 0) return;
    const run = this.#runs.get(runId);
    const token = options?.fencingToken;
    // A lease is never replaced while its run is kept (both go together): the run's copy saves a lookup.
    let lease = run?.lease;
    if (token !== undefined) {
      checkToken('appendEvents', token);
      lease ??= this.#leases.get(runId);
      const latest = lease?.token ?? 0;
      if (token < latest) throw fencedError(runId, token, latest);
    }
    this.#journaled.journal = run?.journal ?? NO_ROWS;
    // The run's row is updated in place: nothing below can fail, and nothing else holds it.
    const plan = planAppend(runId, prepared, run?.row, this.#journaled, true);
    if (plan.row === undefined) return;
    const target: MemoryRun = run ?? { row: plan.row, journal: [] };
    if (lease !== undefined) target.lease = lease;
    for (const event of plan.insert as KeptEvent[]) {
      // The event's copy is what the journal keeps (no JSON text made on this path).
      const row = rowOf(event);
      target.journal.push(row);
      if (event.type === 'run_start' && target.started !== true) {
        target.started = true;
        const prompt = row instanceof TextRow ? promptOf(eventOf(row) as { prompt?: unknown }) : event.prompt;
        if (prompt !== undefined) target.line = firstLine(prompt);
      }
    }
    target.row = plan.row;
    // The map is kept in order of the last append, least recent first, among the runs that are not running
    // (only those are evicted, from its front): a run moves to the end when an append leaves it not running.
    if (run === undefined) {
      this.#runs.set(runId, target);
      this.#newest = runId;
    } else if (plan.row.status !== 'running' && runId !== this.#newest) {
      this.#runs.delete(runId);
      this.#runs.set(runId, target);
      this.#newest = runId;
    }
    if (run === undefined && this.#runs.size > this.#maxRuns) this.#evictOne();
  }

  /** Forgets the run appended to least recently that is not running, if there is one. */
  #evictOne(): void {
    for (const [runId, { row }] of this.#runs) {
      if (row.status === 'running') continue;
      this.#runs.delete(runId);
      this.#leases.delete(runId);
      if (runId === this.#newest) this.#newest = undefined;
      return;
    }
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const run = this.#runs.get(runId);
    return run && decodeRun(runId, run.journal.map(journalRow));
  }

  async readEvents(runId: string, query: ReadEventsQuery): Promise<RunEvent[]> {
    this.#open('readEvents');
    checkId(runId, 'readEvents: runId');
    const { after, limit } = checkEventsQuery(query);
    const journal = this.#runs.get(runId)?.journal ?? [];
    const from = firstAfter(journal, after);
    return decodeEvents(runId, journal.slice(from, from + limit).map(journalRow));
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const { limit, before, status, sessionId, tenant, model, search, since } = checkQuery('listRuns', query);
    const needle = search === undefined ? undefined : asciiLower(search);
    return [...this.#runs.values()]
      .filter(
        ({ row, line }) =>
          (status === undefined || row.status === status) &&
          (sessionId === undefined || row.sessionId === sessionId) &&
          (tenant === undefined || ofTenant(row.tenant, tenant)) &&
          (model === undefined || row.model === model) &&
          (since === undefined || row.createdAt >= since) &&
          (before === undefined || row.updatedAt < before) &&
          (needle === undefined || (line !== undefined && asciiLower(line).includes(needle))),
      )
      .sort(
        newestFirst(
          ({ row }) => row.runId,
          ({ row }) => row.updatedAt,
        ),
      )
      .slice(0, limit)
      .map(({ row, line }) => {
        const title = line === undefined ? undefined : titleOf(line.slice(0, TITLE_LINE_CHARS));
        return toRunSummary(this.#withLease(title === undefined ? row : { ...row, title }));
      });
  }

  async runsOverview(query: RunsOverviewQuery): Promise<RunsOverview> {
    this.#open('runsOverview');
    const window = checkOverviewQuery(query);
    const { tenant } = window;
    return memoryOverview(
      [...this.#runs.values()]
        .filter(({ row }) => tenant === undefined || ofTenant(row.tenant, tenant))
        .map(({ row, journal }) => ({ row, journal })),
      window,
    );
  }

  #withLease(row: RunRow): RunRow {
    const holder = this.#leases.get(row.runId)?.holder;
    return holder === undefined
      ? row
      : { ...row, owner: holder.owner, leaseUntil: new Date(holder.untilMs).toISOString() };
  }

  acquireLease(runId: string, options: AcquireLeaseOptions): Promise<AcquireLeaseResult> {
    try {
      return Promise.resolve(this.#acquire(runId, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #acquire(runId: string, options: AcquireLeaseOptions): AcquireLeaseResult {
    this.#open('acquireLease');
    const { owner, leaseMs, force } = checkAcquire(runId, options);
    const now = Date.now();
    const lease = this.#leases.get(runId) ?? { token: 0 };
    const { holder } = lease;
    if (!force && holder !== undefined && holder.untilMs >= now) {
      return { acquired: false, owner: holder.owner, leaseUntil: new Date(holder.untilMs).toISOString() };
    }
    lease.token += 1;
    lease.holder = { owner, untilMs: now + leaseMs };
    this.#leases.set(runId, lease);
    return { acquired: true, lease: leaseOf(runId, owner, lease.token, lease.holder.untilMs) };
  }

  async renewLease(lease: RunLease, leaseMs: number): Promise<RunLease> {
    this.#open('renewLease');
    const ms = checkRenew(lease, leaseMs);
    const current = this.#leases.get(lease.runId);
    if (current?.holder === undefined || current.token !== lease.token) {
      throw fencedError(lease.runId, lease.token, current?.token ?? 0);
    }
    current.holder.untilMs = Date.now() + ms;
    return leaseOf(lease.runId, current.holder.owner, current.token, current.holder.untilMs);
  }

  releaseLease(lease: RunLease): Promise<void> {
    try {
      this.#open('releaseLease');
      const current = this.#leases.get(lease?.runId);
      if (current !== undefined && current.token === lease.token) current.holder = undefined;
      return DONE;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async claimOrphans(options: ClaimOrphansOptions): Promise<RunLease[]> {
    this.#open('claimOrphans');
    const { owner, leaseMs, limit } = checkClaim(options);
    const now = Date.now();
    const claimed: RunLease[] = [];
    for (const [runId, lease] of this.#leases) {
      if (claimed.length >= limit) break;
      if (lease.holder === undefined || lease.holder.untilMs >= now) continue;
      if (this.#runs.get(runId)?.row.status !== 'running') continue;
      lease.token += 1;
      lease.holder = { owner, untilMs: now + leaseMs };
      claimed.push(leaseOf(runId, owner, lease.token, lease.holder.untilMs));
    }
    return claimed;
  }

  async getSession(id: string): Promise<StoredSession | undefined> {
    this.#open('getSession');
    checkId(id, 'getSession: id');
    const session = this.#sessions.get(id);
    return session && decodeSession(id, session.json);
  }

  async saveSession(session: StoredSession): Promise<void> {
    this.#open('saveSession');
    const prepared = prepareSession(session, this.#limits);
    // Kept in order of the last save, least recent first: the first one goes when there are too many.
    this.#sessions.delete(prepared.id);
    this.#sessions.set(prepared.id, prepared);
    if (this.#sessions.size > this.#maxSessions) this.#sessions.delete(this.#sessions.keys().next().value as string);
  }

  async deleteSession(id: string): Promise<boolean> {
    this.#open('deleteSession');
    checkId(id, 'deleteSession: id');
    return this.#sessions.delete(id);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    this.#open('listSessions');
    const { limit, before, tenant } = checkQuery('listSessions', query);
    return [...this.#sessions.values()]
      .filter(
        (session) =>
          (before === undefined || session.updatedAt < before) &&
          (tenant === undefined || ofTenant(session.tenant, tenant)),
      )
      .sort(newestFirst((session) => session.id))
      .slice(0, limit)
      .map(({ id, messageCount, createdAt, updatedAt }) => ({ id, messageCount, createdAt, updatedAt }));
  }

  /** Sends a signal to the runs of this store (this process only: a memory store has no other). */
  async sendRunSignal(runId: string, signal: RunSignal): Promise<void> {
    this.#open('sendRunSignal');
    checkId(runId, 'sendRunSignal: runId');
    const copy = checkSignal(signal);
    // Delivered after the send resolves, as a database store's would be: never inside the sender's call.
    setImmediate(() => this.#signals.dispatch(runId, copy));
  }

  listenRunSignals(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    try {
      this.#open('listenRunSignals');
      return Promise.resolve(this.#signals.add(runId, listener));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#signals.clear();
  }

  /** Test hook of the conformance suite: replaces a journal row's stored text. */
  corruptForTest(runId: string, sequence: number, json: string): void {
    const journal = this.#runs.get(runId)?.journal;
    const index = journal?.findIndex((entry) => entry.sequence === sequence) ?? -1;
    if (journal === undefined || index < 0) throw new Error(`no journal row ${runId}#${sequence}`);
    journal[index] = new TextRow(sequence, json);
  }

  /** Test hook of the conformance suite: replaces a session's stored text. */
  corruptSessionForTest(id: string, json: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) throw new Error(`no session ${id}`);
    session.json = json;
  }

  #open(method: string): void {
    if (this.#closed) throw closedError(method, 'memory:');
  }
}

/** Whether a row of tenant `owner` (undefined: none named) belongs to `tenant`. */
function ofTenant(owner: string | undefined, tenant: string): boolean {
  return owner === tenant || (owner === undefined && tenant === DEFAULT_TENANT);
}

/** Newest `updatedAt` first; ties by id, descending, as the SQL stores order them. */
function newestFirst<T>(
  id: (item: T) => string,
  updatedAt: (item: T) => string = (item) => (item as { updatedAt: string }).updatedAt,
): (a: T, b: T) => number {
  return (a, b) => {
    const [first, second] = [updatedAt(a), updatedAt(b)];
    if (first !== second) return first < second ? 1 : -1;
    const left = id(a);
    const right = id(b);
    return left === right ? 0 : left < right ? 1 : -1;
  };
}
