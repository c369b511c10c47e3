import type { ApprovalDecision } from '@bridle/core';
import type { RunEvent } from '@bridle/protocol';

/** How a recorded run's approvals were decided, for `bridle replay` to decide them the same way. */
export interface RecordedDecisions {
  /** Calls the run paused on (`awaiting_approval`): a person decided them later, with `bridle resume` or the server. */
  paused: Set<string>;
  /** The decisions each resumed segment started with, in order (its `run_start`'s `approvals`). */
  resumes: Record<string, ApprovalDecision>[];
  /** Calls denied while the run ran (by its approve hook): their result is a `Denied: ...` text, and no pause. */
  deniedInRun: Set<string>;
}

/** The decisions of one run (its own, not a sub-agent's), read from its events. */
export function recordedDecisions(events: readonly RunEvent[], runId: string): RecordedDecisions {
  const paused = new Set<string>();
  const resumes: Record<string, ApprovalDecision>[] = [];
  const denied = new Set<string>();
  for (const event of events) {
    if (event.runId !== runId || event.parentRunId !== undefined) continue;
    if (event.type === 'run_end') for (const call of event.pendingApprovals ?? []) paused.add(call.callId);
    else if (event.type === 'run_start' && event.approvals !== undefined) resumes.push(event.approvals);
    else if (event.type === 'tool_end' && event.result.startsWith('Denied:')) denied.add(event.callId);
  }
  for (const callId of paused) denied.delete(callId);
  return { paused, resumes, deniedInRun: denied };
}
