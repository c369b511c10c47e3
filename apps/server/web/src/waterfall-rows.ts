import type { InspectorEvent } from './api';

/** One attempt of a call, in milliseconds since the epoch. */
export interface Attempt {
  start: number;
  end: number;
  error?: string;
}

/**
 * One row of the waterfall: a model call (its attempts), a tool call, a wait for approval, or a moment the
 * run was steered or cancelled from outside (`steer`: a mark at its time).
 */
export interface WaterfallRow {
  key: string;
  kind: 'model' | 'tool' | 'approval' | 'steer';
  label: string;
  /** 0 for the run's own calls, 1 for a sub-agent's, and so on. */
  depth: number;
  start: number;
  end: number;
  attempts: Attempt[];
  error?: boolean;
  /** A tool call's id (its sub-agent's rows follow it). */
  callId?: string;
}

const time = (event: InspectorEvent) => Date.parse(event.timestamp);

/** A row for one moment (no duration): a steering message or a cancel. */
function moment(event: InspectorEvent, depth: number, label: string, at: number): WaterfallRow {
  return {
    key: `${depth}:${event.runId}:${event.type}:${event.sequence}`,
    kind: 'steer',
    label,
    depth,
    start: at,
    end: at,
    attempts: [{ start: at, end: at }],
  };
}

/**
 * The waterfall of a run from its events: one row per model call (a step; retried attempts are segments of
 * the one row), per tool call, and per wait for approval; a sub-agent's rows (from `children`, by the call
 * that started it) follow its tool call, one level deeper. `now` ends what has not ended yet.
 */
export function waterfallRows(
  events: readonly InspectorEvent[],
  children: ReadonlyMap<string, readonly InspectorEvent[]>,
  now: number,
  depth = 0,
): WaterfallRow[] {
  const rows: WaterfallRow[] = [];
  const models = new Map<string, WaterfallRow>();
  const tools = new Map<string, WaterfallRow>();
  let pause: WaterfallRow | undefined;
  // The last wait for approval: the decisions journaled when the run resumes say how it ended.
  let waited: { row: WaterfallRow; label: string; decisions: string[] } | undefined;
  const open = new Set<WaterfallRow>();
  // Only this run's own events: a sub-agent's events streamed live carry parentRunId and come from `children`.
  const own = events.filter((event) => event.parentRunId === undefined);
  const last = own.length > 0 ? time(own.at(-1) as InspectorEvent) : now;
  for (const event of own) {
    const at = time(event);
    switch (event.type) {
      case 'model_start': {
        const key = `model:${event.step}`;
        let row = models.get(key);
        if (!row) {
          row = {
            key: `${depth}:${event.runId}:${key}`,
            kind: 'model',
            label: `model · step ${event.step}`,
            depth,
            start: at,
            end: at,
            attempts: [],
          };
          models.set(key, row);
          rows.push(row);
        }
        row.attempts.push({ start: at, end: at });
        open.add(row);
        break;
      }
      case 'model_end':
      case 'model_error': {
        const row = models.get(`model:${event.step}`);
        const attempt = row?.attempts.at(-1);
        if (!row || !attempt) break;
        open.delete(row);
        attempt.end = event.type === 'model_end' ? attempt.start + (event.durationMs ?? at - attempt.start) : at;
        if (event.type === 'model_error') attempt.error = event.error ?? 'model error';
        row.end = Math.max(row.end, attempt.end);
        row.error = event.type === 'model_error' && event.willRetry !== true;
        if (row.attempts.length > 1) row.label = `model · step ${event.step} · ${row.attempts.length} attempts`;
        break;
      }
      case 'tool_start': {
        const row: WaterfallRow = {
          key: `${depth}:${event.runId}:tool:${event.callId}`,
          kind: 'tool',
          label: `tool ${event.name}`,
          depth,
          start: at,
          end: at,
          attempts: [{ start: at, end: at }],
          callId: event.callId as string,
        };
        tools.set(event.callId as string, row);
        rows.push(row);
        open.add(row);
        const child = children.get(event.callId as string);
        if (child) rows.push(...waterfallRows(child, children, now, depth + 1));
        break;
      }
      case 'tool_end': {
        const row = tools.get(event.callId as string);
        if (!row) break;
        open.delete(row);
        row.end = row.start + (event.durationMs ?? at - row.start);
        (row.attempts[0] as Attempt).end = row.end;
        if (event.isError) {
          row.error = true;
          (row.attempts[0] as Attempt).error = 'error result';
        }
        break;
      }
      case 'approval_decided':
        if (waited) {
          const who =
            event.decidedBy === 'timeout' ? 'at the deadline' : `by ${event.by ?? `a ${event.decidedBy ?? 'person'}`}`;
          waited.decisions.push(`${event.approved ? 'approved' : 'denied'} ${who}`);
          waited.row.label = `${waited.label} · ${waited.decisions.join(', ')}`;
        }
        break;
      case 'input':
        rows.push(moment(event, depth, `steered by ${event.by ?? 'someone'}`, at));
        break;
      case 'run_end':
        if (event.cancelledBy !== undefined) rows.push(moment(event, depth, `cancelled by ${event.cancelledBy}`, at));
        if (event.status === 'awaiting_approval') {
          const names = (event.pendingApprovals ?? []).map((call) => call.name).join(', ');
          pause = {
            key: `${depth}:${event.runId}:pause:${event.sequence}`,
            kind: 'approval',
            label: `waiting for approval${names ? ` · ${names}` : ''}`,
            depth,
            start: at,
            end: now,
            attempts: [{ start: at, end: now }],
          };
          rows.push(pause);
          waited = { row: pause, label: pause.label, decisions: [] };
        }
        break;
      case 'run_start':
        if (pause) {
          pause.end = at;
          (pause.attempts[0] as Attempt).end = at;
          pause = undefined;
        }
        break;
    }
  }
  // Calls still open (a live run, or one cut off) end at the latest event.
  for (const row of open) {
    row.end = Math.max(row.end, last);
    const attempt = row.attempts.at(-1);
    if (attempt) attempt.end = Math.max(attempt.end, last);
  }
  return rows;
}
