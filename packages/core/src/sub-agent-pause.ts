import { createHash } from 'node:crypto';
import { ConfigError, type RunState, type Usage } from '@bridle/protocol';
import type { ApprovalDecision, PendingApproval } from './types';

/** A sub-agent (`agentTool`) that paused for approval, as the parent's paused batch keeps it. */
export interface PausedSubAgent {
  /** The sub-agent's run id. */
  runId: string;
  /** Its calls waiting for a decision, each with the run id of the (sub-)agent that made it. */
  pending: PendingApproval[];
  /** The sub-agent's usage when it paused (already added to the parent's). */
  usage: Usage;
  /** The sub-agent's `state`, when it does not journal to a store (then this is how it resumes). */
  state?: RunState;
}

const PAUSE_MARKER = Symbol.for('bridle.core.subAgentPause');

/**
 * Thrown by `agentTool`'s `execute` when its sub-agent paused for approval: the parent's loop does not
 * answer the call but pauses too, listing the sub-agent's pending calls as its own.
 */
export class SubAgentPause extends Error {
  readonly [PAUSE_MARKER] = true;
  constructor(readonly paused: PausedSubAgent) {
    super(`Sub-agent run ${paused.runId} is waiting for approval.`);
    this.name = 'SubAgentPause';
  }

  /** True for a pause thrown by any copy of @bridle/core. */
  static isInstance(value: unknown): value is SubAgentPause {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PAUSE_MARKER] === true;
  }
}

/** The key of a sub-agent's run options naming its parent run and call (journaled in its first `run_start`). */
export const SUB_AGENT_OF = Symbol('bridle.core.subAgentOf');

/** The key under which a tool call's context tells `agentTool` about its sub-agent run. */
export const SUB_AGENT_CALL = Symbol('bridle.core.subAgentCall');

/** What one call of `agentTool` needs to start or resume its sub-agent. */
export interface SubAgentCall {
  /** The sub-agent's run id: derived from the parent's run, step and call, so a resumed parent finds it again. */
  runId: string;
  /** The parent's run and call. */
  parent: { runId: string; callId: string };
  /** The pause this call continues (the parent was resumed), if any. */
  paused: PausedSubAgent | undefined;
  /** The decisions given to the parent for calls the sub-agent waits on. */
  approvals: Record<string, ApprovalDecision> | undefined;
  /** Adds the sub-agent's usage to the parent's (journaled with the call's `tool_end`, or with the pause). */
  addUsage(usage: Usage): void;
}

/**
 * The run id of the sub-agent started by call `callId` of step `step` of run `parentRunId`: a UUID-shaped
 * digest, the same every time, so a parent resumed after a pause or a crash continues the same sub-agent run.
 */
export function subAgentRunId(parentRunId: string, step: number, callId: string): string {
  const hex = createHash('sha256')
    .update(`bridle.sub-agent\u0000${parentRunId}\u0000${step}\u0000${callId}`)
    .digest('hex');
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The pending calls of a sub-agent as its parent lists them: each names the run that made it. */
export function pendingForParent(runId: string, pending: readonly PendingApproval[]): PendingApproval[] {
  return pending.map((call) => ({ ...call, runId: call.runId ?? runId }));
}

/**
 * Hands each decision meant for a paused sub-agent's call to the parent call that runs that sub-agent.
 * Returns the call ids it took (the others are the parent's own).
 */
export function routeSubAgentDecisions(
  subAgents: ReadonlyMap<string, PausedSubAgent>,
  subDecisions: Map<string, Record<string, ApprovalDecision>>,
  decisions: Readonly<Record<string, ApprovalDecision>>,
): Set<string> {
  const taken = new Set<string>();
  if (subAgents.size === 0) return taken;
  for (const [callId, decision] of Object.entries(decisions)) {
    for (const [parentCallId, paused] of subAgents) {
      const pending = paused.pending.find((each) => each.callId === callId);
      if (!pending) continue;
      // A decision bound to another pause is refused here, before anything runs (not when the sub-agent resumes).
      const named = typeof decision === 'object' ? decision.digest : undefined;
      if (named !== undefined && named !== pending.digest)
        throw new ConfigError(
          `Cannot decide call ${JSON.stringify(callId)}: the decision was made on another pause (it names digest ${JSON.stringify(named)}, the call pending now has ${pending.digest}). Nothing was run; show the pending call again and decide on it.`,
        );
      const routed = subDecisions.get(parentCallId) ?? {};
      routed[callId] = decision;
      subDecisions.set(parentCallId, routed);
      taken.add(callId);
    }
  }
  return taken;
}

/**
 * Refuses a decision routed to a paused sub-agent that names the digest of another pause (the sub-agent
 * checks it again when it resumes, but by then the parent would be running). Throws `ConfigError`.
 */
export function assertSubAgentDigests(
  subAgents: ReadonlyMap<string, PausedSubAgent>,
  decisions: Readonly<Record<string, ApprovalDecision>>,
  routed: ReadonlySet<string>,
): void {
  for (const callId of routed) {
    const decision = decisions[callId];
    const named = typeof decision === 'object' ? decision.digest : undefined;
    if (named === undefined) continue;
    for (const paused of subAgents.values()) {
      const digest = paused.pending.find((call) => call.callId === callId)?.digest;
      if (digest !== undefined && digest !== named)
        throw new ConfigError(
          `Cannot decide call ${JSON.stringify(callId)}: the decision was made on another pause (it names digest ${JSON.stringify(named)}, the call pending now has ${digest}). Nothing was run; show the pending call again and decide on it.`,
        );
    }
  }
}

/** Every call id a paused batch waits on: its own asked calls, then its paused sub-agents' pending calls. */
export function pendingIds(
  batch: { asked: ReadonlySet<string>; subAgents: ReadonlyMap<string, PausedSubAgent> } | undefined,
): string[] {
  if (!batch) return [];
  const ids = [...batch.asked];
  for (const paused of batch.subAgents.values()) for (const call of paused.pending) ids.push(call.callId);
  return ids;
}

/**
 * Refuses to resume a run whose paused sub-agent's tool is not among the given tools: the call would
 * end `Unknown tool` and its sub-agent would wait forever. Throws `ConfigError` naming the tool.
 */
export function assertSubAgentTools(
  runId: string,
  batch:
    | { subAgents: ReadonlyMap<string, PausedSubAgent>; recorded: readonly { id: string; name: string }[] }
    | undefined,
  has: (name: string) => boolean,
): void {
  if (!batch) return;
  for (const [callId, paused] of batch.subAgents) {
    const name = batch.recorded.find((recorded) => recorded.id === callId)?.name;
    if (name === undefined || has(name)) continue;
    throw new ConfigError(
      `Cannot resume run ${runId}: its sub-agent run ${paused.runId} waits for approval inside call ${JSON.stringify(callId)} of tool ${JSON.stringify(name)}, which the given tools lack. Pass the tools the run had, ${JSON.stringify(name)} included. Nothing was run.`,
    );
  }
}

/** The decisions of `approvals` on calls that are in `pending`. */
export function decisionsFor(
  approvals: Readonly<Record<string, ApprovalDecision>> | undefined,
  pending: readonly { callId: string }[],
): Record<string, ApprovalDecision> {
  const chosen: Record<string, ApprovalDecision> = {};
  if (!approvals) return chosen;
  for (const call of pending)
    if (call.callId in approvals) chosen[call.callId] = approvals[call.callId] as ApprovalDecision;
  return chosen;
}

/** `total - counted`, for usage a sub-agent added since its last pause. */
export function usageSince(total: Usage, counted: Usage | undefined): Usage {
  if (!counted) return total;
  const delta: Usage = {
    inputTokens: total.inputTokens - counted.inputTokens,
    outputTokens: total.outputTokens - counted.outputTokens,
  };
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'costUsd'] as const) {
    const value = (total[key] ?? 0) - (counted[key] ?? 0);
    if (total[key] !== undefined || counted[key] !== undefined) delta[key] = value;
  }
  return delta;
}
