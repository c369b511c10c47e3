import type BetterSqlite3 from 'better-sqlite3';
import type { RunRecord } from './run-record';

/** The runs-table record an append reads: the row, and the sequence and time of the run's last journaled event. */
export interface AppendRecord extends RunRecord {
  journal_last: number | null;
  journal_time: string | null;
}

/** How many runs' records are kept at most; the oldest is dropped first (a run that ended is dropped at once). */
const MAX_RECORDS = 4096;

/**
 * The records this connection's own appends left, so that the next append of a run in a long segment skips
 * reading its row and last event again (8.6% of a journaling server's CPU per /api/chat request, perf).
 * A record is exactly what the append's SELECT would return: it is trusted only while no other connection
 * (another process, or another store on the same file) has committed since, which `PRAGMA data_version` tells
 * at the start of each write transaction (another writer cannot commit during it: it holds the write lock).
 * Any other write of this connection to a run's row (a lease taken, renewed, given up) drops that run's record.
 */
export class AppendRecords {
  readonly #records = new Map<string, AppendRecord>();
  readonly #dataVersion: BetterSqlite3.Statement;
  #version: unknown;

  constructor(db: BetterSqlite3.Database) {
    this.#dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Call first in each write transaction: forgets every record when another connection committed meanwhile. */
  sync(): void {
    const version = this.#dataVersion.get();
    if (version !== this.#version) {
      this.#records.clear();
      this.#version = version;
    }
  }

  get(runId: string): AppendRecord | undefined {
    return this.#records.get(runId);
  }

  /** Keeps `record` as run `runId`'s state once the write that produced it is in the open transaction. */
  set(runId: string, record: AppendRecord): void {
    this.#records.delete(runId);
    if (this.#records.size >= MAX_RECORDS) this.#records.delete(this.#records.keys().next().value as string);
    this.#records.set(runId, record);
  }

  drop(runId: string): void {
    this.#records.delete(runId);
  }

  /** Forgets everything: a transaction failed or rolled back, so some kept records may describe uncommitted rows. */
  clear(): void {
    this.#records.clear();
    this.#version = undefined;
  }
}

/** The record of a run whose row was just made by taking its first lease, as the append's SELECT would read it. */
export function leasedRecord(
  runId: string,
  time: string,
  owner: string,
  leaseUntil: number,
  token: number,
): AppendRecord {
  return {
    run_id: runId,
    status: 'running',
    model: null,
    session_id: null,
    tenant: null,
    created_at: time,
    updated_at: time,
    last_sequence: -1,
    totals: null,
    owner,
    lease_until: leaseUntil,
    fencing_token: token,
    journal_last: null,
    journal_time: null,
  };
}
