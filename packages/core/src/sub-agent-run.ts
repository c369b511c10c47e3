import type { RunEvent, Store } from '@bridle/protocol';
import { approvalDigest } from './approval-digest';
import {
  decisionsFor,
  type PausedSubAgent,
  pendingForParent,
  type SubAgentCall,
  SubAgentPause,
  usageSince,
} from './sub-agent-pause';
import type { AgentResult, ResumeRunOptions } from './types';

/** Where a resumed sub-agent is: its journal (`runId` in the store) or its state, with decisions. */
export type SubAgentResume = Pick<ResumeRunOptions, 'runId' | 'state' | 'approvals'>;

/** How `agentTool` starts and resumes its sub-agent (an `Agent` keeps its conversation; options do not). */
export interface SubAgentRunner {
  start(): Promise<AgentResult>;
  resume(where: SubAgentResume): Promise<AgentResult>;
}

/** A pause known already (nothing to decide for it yet), as the result of a run that paused. */
function pausedResult(runId: string, paused: Omit<PausedSubAgent, 'runId'>): AgentResult {
  return {
    status: 'awaiting_approval',
    messages: [],
    steps: 0,
    toolCalls: 0,
    runId,
    usage: paused.usage,
    pendingApprovals: paused.pending,
    ...(paused.state === undefined ? {} : { state: paused.state }),
  };
}

function lastOwnEnd(events: readonly RunEvent[]) {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as RunEvent;
    if (event.type === 'run_end' && event.parentRunId === undefined) return event;
  }
  return undefined;
}

/**
 * Starts the sub-agent of one `agentTool` call, or continues it: a sub-agent already in the store (the
 * parent resumed after a pause or a crash) is resumed from its journal, with the parent's decisions on
 * the calls it waits on; one that paused without a store resumes from the state its pause left. A pause
 * with no decision for it yet is returned as it is, running nothing.
 */
export async function runSubAgent(
  runner: SubAgentRunner,
  store: Store | undefined,
  call: SubAgentCall,
): Promise<AgentResult> {
  if (store) {
    const stored = await store.readRun(call.runId);
    if (stored === undefined || stored.events.length === 0) return runner.start();
    if (stored.status !== 'awaiting_approval') return runner.resume({ runId: call.runId });
    const end = lastOwnEnd(stored.events);
    // A journal written before decisions were bound to their pause has no digests: they are computed the same way.
    const pending = (end?.pendingApprovals ?? []).map((waiting) => ({
      ...waiting,
      digest: waiting.digest ?? approvalDigest({ ...waiting, runId: waiting.runId ?? call.runId }),
    }));
    const approvals = decisionsFor(call.approvals, pending);
    if (Object.keys(approvals).length === 0)
      return pausedResult(call.runId, { pending, usage: end?.usage ?? { inputTokens: 0, outputTokens: 0 } });
    return runner.resume({ runId: call.runId, approvals });
  }
  const { paused } = call;
  if (paused?.state === undefined) return runner.start();
  const approvals = decisionsFor(call.approvals, paused.pending);
  if (Object.keys(approvals).length === 0) return pausedResult(call.runId, paused);
  return runner.resume({ state: paused.state, approvals });
}

/**
 * What the parent does with its sub-agent's result: a pause becomes a `SubAgentPause` (thrown; the
 * parent pauses too, after adding the usage the sub-agent spent since it was last counted); otherwise
 * the usage not yet counted is added and the result returned.
 */
export function settleSubAgent(result: AgentResult, call: SubAgentCall): AgentResult {
  call.addUsage(usageSince(result.usage, call.paused?.usage));
  if (result.status !== 'awaiting_approval' || !result.pendingApprovals) return result;
  const journaled = (result.state as { journaled?: unknown } | undefined)?.journaled === true;
  throw new SubAgentPause({
    runId: result.runId,
    pending: pendingForParent(result.runId, result.pendingApprovals),
    usage: { ...result.usage },
    ...(journaled || result.state === undefined ? {} : { state: result.state }),
  });
}
