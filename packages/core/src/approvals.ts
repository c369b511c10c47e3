import type { ApprovalDecidedBody, Tool, ToolCall } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { ToolRegistry } from '@bridle/registry';
import { approvalDigest } from './approval-digest';
import type { EventSink } from './event-sink';
import type { Batch, Decision } from './loop-state';
import { Cancelled, type RunScope } from './run-scope';
import type { ApprovalDecision, ApproveHook, PendingApproval } from './types';

/** True when some call of the batch is of a `requiresApproval` tool (then decisions are made first). */
export function needsDecisions(batch: Batch, registry: ToolRegistry): boolean {
  for (const call of batch.calls) if (registry.get(call.name)?.requiresApproval === true) return true;
  return false;
}

async function validArguments(registry: ToolRegistry, call: ToolCall, scope: RunScope): Promise<boolean> {
  try {
    return registry.validate(call.name, call.arguments).ok;
  } catch {
    // Only a Standard Schema that validates asynchronously throws here.
    return (await scope.race(registry.validateAsync(call.name, call.arguments))).ok;
  }
}

/** The result a call gets when its deadline passed undecided (never worded as a person's refusal). */
export const DEADLINE_PASSED_TEXT = 'No decision was made before the deadline; this is not a refusal by a person.';

/** A decision and who made it, as `approval_decided` journals it. */
interface Decided {
  decision: Decision;
  decidedBy: 'person' | 'policy' | 'timeout';
  by?: string;
}

function hookDecision(answer: unknown, tool: Tool): Decided | 'ask' {
  if (answer === 'ask') return answer;
  if (answer === true) return { decision: true, decidedBy: 'policy' };
  const object = answer as { approved?: unknown; reason?: unknown; decidedBy?: unknown; by?: unknown } | null;
  if (typeof object !== 'object' || object === null || typeof object.approved !== 'boolean')
    return { decision: `Denied: the approve hook refused this call to ${tool.name}.`, decidedBy: 'policy' };
  const author = {
    decidedBy: object.decidedBy === 'person' ? ('person' as const) : ('policy' as const),
    ...(typeof object.by === 'string' ? { by: object.by } : {}),
  };
  if (object.approved) return { decision: true, ...author };
  const reason = typeof object.reason === 'string' && object.reason !== '' ? object.reason : undefined;
  return {
    decision: reason ? `Denied: ${reason}` : `Denied: the approve hook refused this call to ${tool.name}.`,
    ...author,
  };
}

async function ask(approve: ApproveHook | undefined, call: ToolCall, tool: Tool, scope: RunScope) {
  if (!approve)
    return {
      decision: `Denied: ${tool.name} requires approval and no approve hook is configured.`,
      decidedBy: 'policy' as const,
      by: 'no approve hook',
    };
  let answer: unknown;
  try {
    answer = await scope.race(new Promise((resolve) => resolve(approve(call, tool))));
  } catch (error) {
    if (error instanceof Cancelled) throw error;
    if (scope.reason) throw new Cancelled(scope.reason);
    return {
      decision: `Denied: the approve hook failed (${errorMessage(error, 'approve hook error')}), so ${tool.name} did not run.`,
      decidedBy: 'policy' as const,
    };
  }
  return hookDecision(answer, tool);
}

/** The `approval_decided` event of a decision. */
export function decidedEvent(callId: string, decided: Decided): ApprovalDecidedBody {
  return {
    type: 'approval_decided',
    callId,
    approved: decided.decision === true,
    decidedBy: decided.decidedBy,
    ...(decided.by === undefined ? {} : { by: decided.by }),
  };
}

/**
 * A pending call as `pendingApprovals` lists it: the recorded arguments (never the tool's own copy) and
 * the digest that binds a decision to this call of this run.
 */
export function pendingApproval(batch: Batch, callId: string, runId: string): PendingApproval {
  const call = batch.recorded.find((recorded) => recorded.id === callId) as ToolCall;
  const digest = approvalDigest({ runId, callId, name: call.name, arguments: call.arguments });
  const deadline = batch.deadlines.get(callId);
  return {
    callId,
    name: call.name,
    arguments: call.arguments,
    digest,
    ...(deadline === undefined ? {} : { deadline }),
  };
}

/**
 * Decides every `requiresApproval` call of a batch before any call runs, in call order, one at a time:
 * calls already decided, already answered (journaled) or waiting for a person are skipped; calls with
 * invalid arguments are not put to the hook (they fail validation later). Returns the calls that wait
 * for a person (`'ask'`), or `undefined` when the batch can run. Throws `Cancelled` with the run.
 */
export async function decideApprovals(
  batch: Batch,
  context: {
    registry: ToolRegistry;
    approve: ApproveHook | undefined;
    approvalTimeoutMs: number | undefined;
    scope: RunScope;
    runId: string;
    emitter: EventSink;
  },
): Promise<PendingApproval[] | undefined> {
  const { registry, scope, emitter } = context;
  const waiting: PendingApproval[] = [];
  for (const call of batch.calls) {
    if (batch.results.has(call.id) || batch.decisions.has(call.id)) continue;
    const tool = registry.get(call.name);
    if (tool?.requiresApproval !== true) continue;
    if (batch.asked.has(call.id)) {
      waiting.push(pendingApproval(batch, call.id, context.runId));
      continue;
    }
    // An interrupted call that is not safe to repeat gets its Interrupted result without a decision.
    if (batch.interrupted.has(call.id) && tool.readOnly !== true && tool.idempotent !== true) continue;
    if (!(await validArguments(registry, call, scope))) continue;
    const answer = await ask(context.approve, call, tool, scope);
    if (answer === 'ask') {
      batch.asked.add(call.id);
      // The deadline is fixed when the person is first asked, and journaled with the pause (in its state).
      const timeoutMs = tool.approvalTimeoutMs ?? context.approvalTimeoutMs;
      const deadline = timeoutMs === undefined ? undefined : new Date(Date.now() + timeoutMs).toISOString();
      if (deadline !== undefined) batch.deadlines.set(call.id, deadline);
      emitter.emit({
        type: 'approval_requested',
        step: batch.step,
        callId: call.id,
        name: call.name,
        ...(deadline === undefined ? {} : { deadline }),
      });
      waiting.push(pendingApproval(batch, call.id, context.runId));
    } else {
      batch.decisions.set(call.id, answer.decision);
      emitter.emit(decidedEvent(call.id, answer));
    }
  }
  return waiting.length > 0 ? waiting : undefined;
}

/**
 * Decides, by their deadline, the calls still waiting for a person whose deadline has passed (at `now`):
 * denied with {@link DEADLINE_PASSED_TEXT}, or run when the tool is `autoApproveOnTimeout`. Returns their
 * `approval_decided` events. Calls of tools no longer given keep waiting (the resume is refused anyway).
 */
export function applyDeadlines(batch: Batch, registry: ToolRegistry, now: number): ApprovalDecidedBody[] {
  const events: ApprovalDecidedBody[] = [];
  for (const [callId, deadline] of batch.deadlines) {
    if (!batch.asked.has(callId) || batch.decisions.has(callId) || Date.parse(deadline) > now) continue;
    const call = batch.recorded.find((recorded) => recorded.id === callId);
    if (!call) continue;
    const tool = registry.get(call.name);
    const decision: Decision = tool?.autoApproveOnTimeout === true ? true : DEADLINE_PASSED_TEXT;
    batch.asked.delete(callId);
    batch.decisions.set(callId, decision);
    events.push(decidedEvent(callId, { decision, decidedBy: 'timeout', by: `deadline ${deadline}` }));
  }
  return events;
}

/** A person's decision as the loop keeps it: `true`, or the `Denied: ...` text of the call's result. */
export function decisionOf(decision: ApprovalDecision, toolName: string): Decision {
  if (decision === true) return true;
  if (typeof decision === 'object' && decision !== null && decision.approved === true) return true;
  const reason = typeof decision === 'object' && decision !== null && !decision.approved ? decision.reason : undefined;
  return reason ? `Denied: ${reason}` : `Denied: the call to ${toolName} was not approved.`;
}
