import type { RunEvent } from '@bridle/protocol';

/** One call of a run that needed a decision, as its journal tells it. */
export interface RunApproval {
  callId: string;
  /** The tool's name (from the call's `approval_requested`, else its `tool_start`). */
  name?: string;
  /** The run whose call it is, when a sub-agent's (not the run's own). */
  subAgentRunId?: string;
  /** When the wait for it ends, if the run set a deadline. */
  deadline?: string;
  /** Undefined while the call waits for a decision. */
  approved?: boolean;
  /** How it was decided (`approval_decided.decidedBy`): `person`, `policy` or `timeout`. */
  decidedBy?: 'person' | 'policy' | 'timeout';
  /** Who exactly (`approval_decided.by`): the CLI user, the server's key name, the policy rule. */
  by?: string;
}

/**
 * The run's approvals in the order they were asked: each call that waited for a decision or was decided, with
 * who decided it (`approval_decided`'s `decidedBy` and `by`). A call decided twice (asked again after a
 * decision that could not be verified) shows its last decision.
 */
export function runApprovals(runId: string, events: readonly RunEvent[]): RunApproval[] {
  const byCall = new Map<string, RunApproval>();
  const names = new Map<string, string>();
  const entry = (event: RunEvent & { callId: string }): RunApproval => {
    const key = `${event.runId}\u0000${event.callId}`;
    let found = byCall.get(key);
    if (found === undefined) {
      found = { callId: event.callId, ...(event.runId === runId ? {} : { subAgentRunId: event.runId }) };
      byCall.set(key, found);
    }
    return found;
  };
  for (const event of events) {
    if (event.type === 'tool_start') names.set(`${event.runId}\u0000${event.callId}`, event.name);
    else if (event.type === 'approval_requested') {
      const approval = entry(event);
      approval.name = event.name;
      if (event.deadline !== undefined) approval.deadline = event.deadline;
    } else if (event.type === 'approval_decided') {
      const approval = entry(event);
      approval.approved = event.approved;
      approval.decidedBy = event.decidedBy;
      if (event.by === undefined) delete approval.by;
      else approval.by = event.by;
    }
  }
  return [...byCall.entries()].map(([key, approval]) => {
    const name = approval.name ?? names.get(key);
    return name === undefined ? approval : { ...approval, name };
  });
}
