import type { RunSummary } from '@bridle/protocol';
import type { PreparedEvent } from './prepare-events';
import { StoreError } from './store-error';

/**
 * A run's row in the runs table: what `listRuns` reads (a {@link RunSummary}: `status` derived like
 * `readRun(...).status`, the model and first `sessionId` of its `run_start`, the totals of its `run_end`
 * events), kept up to date with every append.
 */
export interface RunRow extends RunSummary {
  lastSequence: number;
  /** The token of the run's latest lease (0 before any). */
  fencingToken: number;
}

/** The journaled JSON of a run's events by sequence (a `Map`, or a lookup in the backend's own rows). */
export interface JournaledEvents {
  get(sequence: number): string | undefined;
}

/** What one append does: the events to insert and the run's row afterwards (undefined when nothing changes). */
export interface AppendPlan {
  insert: readonly PreparedEvent[];
  row?: RunRow;
}

/**
 * Decides an append inside the backend's transaction. `current` is the run's row (undefined for a new run);
 * `existing` holds the stored JSON of every batch event at or below `current.lastSequence`.
 * An event already journaled with the same JSON is skipped (a retried append is safe); one with other JSON,
 * or one that would land before the run's last event, throws `StoreError` (`conflict`) and nothing is written.
 * With `inPlace`, the plan's row is `current` itself, updated (see {@link applyEvents}), once nothing can throw.
 */
export function planAppend(
  runId: string,
  events: readonly PreparedEvent[],
  current: RunRow | undefined,
  existing: JournaledEvents,
  inPlace = false,
): AppendPlan {
  const last = current?.lastSequence ?? -1;
  // The common case: the whole batch is new (its sequences increase, so its first one tells).
  if (events.length > 0 && (events[0] as PreparedEvent).sequence > last)
    return { insert: events, row: applyEvents(runId, current, events, inPlace) };
  const insert: PreparedEvent[] = [];
  for (const event of events) {
    if (event.sequence > last) {
      insert.push(event);
      continue;
    }
    const stored = existing.get(event.sequence);
    if (stored === undefined) {
      throw new StoreError(
        'conflict',
        `appendEvents(${JSON.stringify(runId)}): sequence ${event.sequence} comes before the run's last journaled ` +
          `sequence ${last}; the journal is append-only, so append new events after ${last}`,
      );
    }
    if (stored !== event.json) {
      throw new StoreError(
        'conflict',
        `appendEvents(${JSON.stringify(runId)}): sequence ${event.sequence} is already journaled with different ` +
          `content (a ${JSON.stringify(event.type)} event now); a retried append must carry the same events`,
      );
    }
  }
  if (insert.length === 0) return { insert };
  return { insert, row: applyEvents(runId, current, insert, inPlace) };
}

/**
 * A run's row with every field present, in one order: rows then share one object shape, which keeps the
 * code that reads and copies them fast (optional fields added in varying orders would not).
 */
export function runRow(fields: Partial<RunRow> & Pick<RunRow, 'runId' | 'status' | 'createdAt' | 'updatedAt'>): RunRow {
  return {
    runId: fields.runId,
    status: fields.status,
    model: fields.model,
    sessionId: fields.sessionId,
    tenant: fields.tenant,
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    steps: fields.steps,
    toolCalls: fields.toolCalls,
    usage: fields.usage,
    durationMs: fields.durationMs,
    title: fields.title,
    owner: fields.owner,
    leaseUntil: fields.leaseUntil,
    lastSequence: fields.lastSequence ?? -1,
    fencingToken: fields.fencingToken ?? 0,
  };
}

/**
 * The run's row after `events` (in sequence order, all after `current.lastSequence`): a new object, or with
 * `inPlace`, `current` itself updated, when it holds a journal (the `memory:` store keeps its rows in no other
 * place, and has no transaction to roll back: a copy per append was garbage only).
 */
export function applyEvents(
  runId: string,
  current: RunRow | undefined,
  events: readonly PreparedEvent[],
  inPlace = false,
): RunRow {
  const first = events[0] as PreparedEvent;
  // A record made by taking a lease before the first append (last sequence -1) holds no journal yet: the
  // run's fields start from its first event, its lease fields stay.
  const row =
    inPlace && current !== undefined && current.lastSequence >= 0
      ? current
      : runRow(
          current === undefined
            ? { runId, status: 'running', createdAt: first.time, updatedAt: first.time }
            : current.lastSequence < 0
              ? { ...current, runId, status: 'running', createdAt: first.time, updatedAt: first.time, lastSequence: -1 }
              : current,
        );
  for (const event of events) {
    if (event.type === 'run_start') {
      row.status = 'running';
      if (row.model === undefined && event.model !== undefined) row.model = event.model;
      if (row.sessionId === undefined && event.sessionId !== undefined) row.sessionId = event.sessionId;
      if (row.tenant === undefined && event.tenant !== undefined) row.tenant = event.tenant;
    } else if (event.type === 'run_end' && event.status !== undefined) {
      row.status = event.status;
      const totals = event.totals;
      if (totals !== undefined) {
        if (totals.steps !== undefined) row.steps = totals.steps;
        if (totals.toolCalls !== undefined) row.toolCalls = totals.toolCalls;
        if (totals.usage !== undefined) row.usage = totals.usage;
        if (totals.durationMs !== undefined) row.durationMs = (row.durationMs ?? 0) + totals.durationMs;
      }
    }
    if (event.time > row.updatedAt) row.updatedAt = event.time;
    row.lastSequence = event.sequence;
  }
  return row;
}

/** Whether an event starts or ends a segment (the events that change a run's row besides its time). */
export function startsOrEnds(event: PreparedEvent): boolean {
  return event.type === 'run_start' || event.type === 'run_end';
}
