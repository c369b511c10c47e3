import type {
  ListRunsQuery,
  ListSessionsQuery,
  RunEvent,
  RunSummary,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from '@bridle/protocol';
import { checkId } from './check-id';
import { checkQuery } from './check-query';
import { closedError } from './closed-error';
import { decodeRun, type JournalRow } from './decode-run';
import type { StoreLimits } from './limits';
import { type JournaledEvents, planAppend, type RunRow } from './plan-append';
import { prepareEvents } from './prepare-events';
import { decodeSession, type PreparedSession, prepareSession } from './prepare-session';
import { toRunSummary } from './summaries';

interface MemoryRun {
  row: RunRow;
  /** In sequence order. */
  journal: JournalRow[];
}

const NOTHING_JOURNALED: JournaledEvents = { get: () => undefined };

/** The journaled JSON of `journal`'s events (in sequence order) by sequence, found by binary search. */
function journaled(journal: readonly JournalRow[]): JournaledEvents {
  return {
    get(sequence) {
      let low = 0;
      let high = journal.length - 1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const row = journal[middle] as JournalRow;
        if (row.sequence === sequence) return row.json;
        if (row.sequence < sequence) low = middle + 1;
        else high = middle - 1;
      }
      return undefined;
    },
  };
}

/**
 * A store in this process's memory (`memory:`): for tests and throwaway runs. It keeps events and sessions
 * as JSON text, so it behaves like the database stores (later changes to an appended object do not reach
 * it, and what is read back is a fresh copy). Each `openStore('memory:')` is a new, empty store.
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
  readonly #sessions = new Map<string, PreparedSession>();
  #closed = false;

  constructor(limits: StoreLimits, bounds: { maxRuns: number; maxSessions: number }) {
    this.#limits = limits;
    this.#maxRuns = bounds.maxRuns;
    this.#maxSessions = bounds.maxSessions;
  }

  async appendEvents(runId: string, events: RunEvent[]): Promise<void> {
    this.#open('appendEvents');
    const prepared = prepareEvents(runId, events, this.#limits);
    if (prepared.length === 0) return;
    const run = this.#runs.get(runId);
    const plan = planAppend(runId, prepared, run?.row, run ? journaled(run.journal) : NOTHING_JOURNALED);
    if (plan.row === undefined) return;
    const target = run ?? { row: plan.row, journal: [] };
    for (const event of plan.insert) target.journal.push({ sequence: event.sequence, json: event.json });
    target.row = plan.row;
    // The map is kept in order of the last append, least recent first, among the runs that are not running
    // (only those are evicted, from its front): a run moves to the end when an append leaves it not running.
    if (run === undefined) this.#runs.set(runId, target);
    else if (plan.row.status !== 'running') {
      this.#runs.delete(runId);
      this.#runs.set(runId, target);
    }
    if (run === undefined && this.#runs.size > this.#maxRuns) this.#evictOne();
  }

  /** Forgets the run appended to least recently that is not running, if there is one. */
  #evictOne(): void {
    for (const [runId, { row }] of this.#runs) {
      if (row.status === 'running') continue;
      this.#runs.delete(runId);
      return;
    }
  }

  async readRun(runId: string): Promise<StoredRun | undefined> {
    this.#open('readRun');
    checkId(runId, 'readRun: runId');
    const run = this.#runs.get(runId);
    return run && decodeRun(runId, run.journal);
  }

  async listRuns(query?: ListRunsQuery): Promise<RunSummary[]> {
    this.#open('listRuns');
    const { limit, before, status, sessionId } = checkQuery('listRuns', query);
    return [...this.#runs.values()]
      .map((run) => run.row)
      .filter(
        (row) =>
          (status === undefined || row.status === status) &&
          (sessionId === undefined || row.sessionId === sessionId) &&
          (before === undefined || row.updatedAt < before),
      )
      .sort(newestFirst((row) => row.runId))
      .slice(0, limit)
      .map(toRunSummary);
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
    const { limit, before } = checkQuery('listSessions', query);
    return [...this.#sessions.values()]
      .filter((session) => before === undefined || session.updatedAt < before)
      .sort(newestFirst((session) => session.id))
      .slice(0, limit)
      .map(({ id, messageCount, createdAt, updatedAt }) => ({ id, messageCount, createdAt, updatedAt }));
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  /** Test hook of the conformance suite: replaces a journal row's stored text. */
  corruptForTest(runId: string, sequence: number, json: string): void {
    const row = this.#runs.get(runId)?.journal.find((entry) => entry.sequence === sequence);
    if (row === undefined) throw new Error(`no journal row ${runId}#${sequence}`);
    row.json = json;
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

/** Newest `updatedAt` first; ties by id, descending, as the SQL stores order them. */
function newestFirst<T extends { updatedAt: string }>(id: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => {
    if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
    const left = id(a);
    const right = id(b);
    return left === right ? 0 : left < right ? 1 : -1;
  };
}
