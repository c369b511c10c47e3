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
}

/** What one append does: the events to insert and the run's row afterwards (undefined when nothing changes). */
export interface AppendPlan {
  insert: PreparedEvent[];
  row?: RunRow;
}

/**
 * Decides an append inside the backend's transaction. `current` is the run's row (undefined for a new run);
 * `existing` holds the stored JSON of every batch event at or below `current.lastSequence`.
 * An event already journaled with the same JSON is skipped (a retried append is safe); one with other JSON,
 * or one that would land before the run's last event, throws `StoreError` (`conflict`) and nothing is written.
 */
export function planAppend(
  runId: string,
  events: readonly PreparedEvent[],
  current: RunRow | undefined,
  existing: ReadonlyMap<number, string>,
): AppendPlan {
  const last = current?.lastSequence ?? -1;
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
  return { insert, row: applyEvents(runId, current, insert) };
}

/** The run's row after `events` (in sequence order, all after `current.lastSequence`). */
export function applyEvents(runId: string, current: RunRow | undefined, events: readonly PreparedEvent[]): RunRow {
  const first = events[0] as PreparedEvent;
  const row: RunRow = current
    ? { ...current }
    : { runId, status: 'running', createdAt: first.time, updatedAt: first.time, lastSequence: -1 };
  for (const event of events) {
    if (event.type === 'run_start') {
      row.status = 'running';
      if (row.model === undefined && event.model !== undefined) row.model = event.model;
      if (row.sessionId === undefined && event.sessionId !== undefined) row.sessionId = event.sessionId;
    } else if (event.type === 'run_end' && event.status !== undefined) {
      row.status = event.status;
      const { steps, toolCalls, usage, durationMs } = event.totals ?? {};
      if (steps !== undefined) row.steps = steps;
      if (toolCalls !== undefined) row.toolCalls = toolCalls;
      if (usage !== undefined) row.usage = usage;
      if (durationMs !== undefined) row.durationMs = (row.durationMs ?? 0) + durationMs;
    }
    if (event.time > row.updatedAt) row.updatedAt = event.time;
    row.lastSequence = event.sequence;
  }
  return row;
}
