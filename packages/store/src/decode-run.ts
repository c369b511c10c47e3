import type { RunEvent, RunState, StoredRun } from '@bridle/protocol';
import { StoreError } from './store-error';

/** One journal row as a backend reads it. */
export interface JournalRow {
  sequence: number;
  json: string;
  /** A fresh copy of the row's event, where the backend keeps events as values (read instead of `json`). */
  value?(): unknown;
}

/**
 * Parses a run's journal rows (in sequence order) into a `StoredRun`, deriving `status` (the last `run_end`'s,
 * or `running` when the last segment, which a `run_start` opens, has none), `state` (that `run_end`'s) and
 * the times (first event's `timestamp`, latest `timestamp`). A row that is not a JSON event of this run at
 * its sequence throws `StoreError` (`corrupt`) naming the run and the sequence.
 */
export function decodeRun(runId: string, rows: readonly JournalRow[]): StoredRun | undefined {
  if (rows.length === 0) return undefined;
  const events: RunEvent[] = [];
  let status = 'running';
  let state: RunState | undefined;
  let createdAt = '';
  let updatedAt = '';
  for (const row of rows) {
    const event = decodeEvent(runId, row);
    events.push(event);
    const time = new Date(Date.parse(event.timestamp)).toISOString();
    if (createdAt === '') createdAt = time;
    if (time > updatedAt) updatedAt = time;
    if (event.type === 'run_start') {
      status = 'running';
      state = undefined;
    } else if (event.type === 'run_end') {
      status = event.status;
      state = event.state;
    }
  }
  return { runId, status, events, ...(state !== undefined && { state }), createdAt, updatedAt };
}

/** Parses journal rows (in sequence order) into their events; a bad row throws as in {@link decodeRun}. */
export function decodeEvents(runId: string, rows: readonly JournalRow[]): RunEvent[] {
  return rows.map((row) => decodeEvent(runId, row));
}

function decodeEvent(runId: string, row: JournalRow): RunEvent {
  let value: unknown;
  try {
    value = row.value === undefined ? JSON.parse(row.json) : row.value();
  } catch (error) {
    throw corrupt(runId, row.sequence, `its JSON does not parse (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw corrupt(runId, row.sequence, 'it is not a JSON object');
  }
  const event = value as Partial<RunEvent>;
  if (event.runId !== runId || event.sequence !== row.sequence || typeof event.type !== 'string') {
    throw corrupt(runId, row.sequence, 'its runId, sequence or type does not match the row');
  }
  if (!Number.isFinite(Date.parse(String(event.timestamp)))) {
    throw corrupt(runId, row.sequence, 'its timestamp is not a time');
  }
  if (event.type === 'run_end' && typeof event.status !== 'string') {
    throw corrupt(runId, row.sequence, 'its run_end has no status');
  }
  return event as RunEvent;
}

function corrupt(runId: string, sequence: number, why: string): StoreError {
  return new StoreError(
    'corrupt',
    `run ${JSON.stringify(runId)} has a corrupt journal row at sequence ${sequence}: ${why}. ` +
      'Other runs are unaffected; restore the database from a backup to read this run again',
  );
}
