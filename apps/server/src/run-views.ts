import { subAgentRunId } from '@bridle/core';
import type { RunEvent, RunSummary, StoredRun } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';

/** One row of `GET /api/runs`: the store's summary, its model id without credentials. */
export type RunRow = RunSummary;

/** `GET /api/runs/:id`: the row, the pending calls and state of a paused run, and every event. */
export interface RunDetail extends RunRow {
  /** A call of a sub-agent (`agentTool`) carries the sub-agent's `runId`; decide it on this run all the same. */
  pendingApprovals?: { callId: string; name: string; arguments: unknown; digest?: string; runId?: string }[];
  /** A sub-agent's run (`agentTool`): the run and call that started it, where its calls are decided. */
  parent?: { runId: string; callId: string };
  /** The sub-agent runs this run started (`agentTool` calls that ended or wait on approval), by call. */
  subAgents?: { callId: string; runId: string }[];
  state?: unknown;
  events: RunEvent[];
}

/**
 * An event as the API shows it: model ids and model errors without credentials (a base URL may carry
 * `user:pass@` or a `?key=`), and no system prompt (it is the operator's, not the API client's).
 */
export function publicEvent(event: RunEvent): RunEvent {
  if (event.type === 'run_start') {
    const { system: _system, ...rest } = event;
    return { ...rest, model: redactCredentials(event.model) };
  }
  if (event.type === 'model_end' && event.model !== undefined)
    return { ...event, model: redactCredentials(event.model) };
  // A provider's error may quote the endpoint it failed to reach, key and all.
  if (event.type === 'model_error') return { ...event, error: redactCredentials(event.error) };
  if (event.type === 'run_end' && event.error !== undefined) return { ...event, error: redactCredentials(event.error) };
  return event;
}

/** The run's own events (a sub-agent's are journaled under its own id). */
function ownEvents(run: StoredRun): RunEvent[] {
  return run.events.filter((event) => event.runId === run.runId && event.parentRunId === undefined);
}

function lastEnd(events: readonly RunEvent[]) {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as RunEvent;
    if (event.type === 'run_end') return event;
  }
  return undefined;
}

/**
 * The row of a run, from its summary (a store keeps the totals of its `run_end` events) or, when given,
 * its journal.
 */
export function runRow(summary: RunSummary, run?: StoredRun): RunRow {
  const row: RunRow = {
    runId: summary.runId,
    status: summary.status,
    ...(summary.model === undefined ? {} : { model: redactCredentials(summary.model) }),
    ...(summary.sessionId === undefined ? {} : { sessionId: summary.sessionId }),
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    ...(summary.steps === undefined ? {} : { steps: summary.steps }),
    ...(summary.toolCalls === undefined ? {} : { toolCalls: summary.toolCalls }),
    ...(summary.usage === undefined ? {} : { usage: summary.usage }),
    ...(summary.durationMs === undefined ? {} : { durationMs: summary.durationMs }),
    ...(summary.title === undefined ? {} : { title: summary.title }),
    ...(summary.owner === undefined ? {} : { owner: summary.owner }),
    ...(summary.leaseUntil === undefined ? {} : { leaseUntil: summary.leaseUntil }),
  };
  if (!run) return row;
  const events = ownEvents(run);
  const end = lastEnd(events);
  if (end) {
    row.steps = end.steps;
    row.toolCalls = end.toolCalls;
    row.usage = end.usage;
  }
  let durationMs = 0;
  let ended = false;
  for (const event of events) {
    if (event.type === 'run_end') {
      durationMs += event.durationMs;
      ended = true;
    }
  }
  if (ended) row.durationMs = durationMs;
  return row;
}

/** `GET /api/runs/:id`. */
export function runDetail(run: StoredRun): RunDetail {
  const events = ownEvents(run);
  const first = events.find((event) => event.type === 'run_start');
  const summary: RunSummary = {
    runId: run.runId,
    status: run.status,
    ...(first?.type === 'run_start' ? { model: first.model } : {}),
    ...(first?.type === 'run_start' && first.sessionId !== undefined ? { sessionId: first.sessionId } : {}),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
  };
  const end = lastEnd(events);
  const parent = first?.type === 'run_start' ? first.parent : undefined;
  const subAgents = subAgentsOf(run.runId, events, end?.pendingApprovals ?? []);
  return {
    ...runRow(summary, run),
    ...(run.status === 'awaiting_approval' ? { pendingApprovals: end?.pendingApprovals ?? [] } : {}),
    ...(parent === undefined ? {} : { parent }),
    ...(subAgents.length === 0 ? {} : { subAgents }),
    ...(run.state === undefined ? {} : { state: run.state }),
    events: events.map(publicEvent),
  };
}

/**
 * The sub-agent runs of a run: a call whose `tool_end` carries `usage` ran an `agentTool` (its run id is
 * derived from the run, the step and the call), and a waiting call a sub-agent made names its run.
 */
function subAgentsOf(
  runId: string,
  events: readonly RunEvent[],
  pending: readonly { callId: string; runId?: string }[],
): { callId: string; runId: string }[] {
  const found = new Map<string, { callId: string; runId: string }>();
  for (const event of events) {
    if (event.type === 'tool_end' && event.usage !== undefined) {
      const child = subAgentRunId(runId, event.step, event.callId);
      found.set(child, { callId: event.callId, runId: child });
    }
  }
  for (const call of pending) {
    if (call.runId !== undefined && call.runId !== runId)
      found.set(call.runId, { callId: call.callId, runId: call.runId });
  }
  return [...found.values()];
}

/** The calls a paused run waits on (its last `run_end`'s), or none. */
export function pendingCalls(
  run: StoredRun,
): { callId: string; name: string; arguments: unknown; digest?: string; runId?: string }[] {
  if (run.status !== 'awaiting_approval') return [];
  return lastEnd(ownEvents(run))?.pendingApprovals ?? [];
}

/** A sub-agent's parent run and call (its first `run_start`'s `parent`), or undefined for a run started by a client. */
export function runParent(run: StoredRun): { runId: string; callId: string } | undefined {
  const first = run.events.find((event) => event.type === 'run_start');
  return first?.type === 'run_start' ? first.parent : undefined;
}

/** The session of a run (its first `run_start`'s). */
export function runSessionId(run: StoredRun): string | undefined {
  const first = run.events.find((event) => event.type === 'run_start');
  return first?.type === 'run_start' ? first.sessionId : undefined;
}
