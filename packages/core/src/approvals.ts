import type { Tool, ToolCall } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import type { ToolRegistry } from '@bridle/registry';
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

async function ask(approve: ApproveHook | undefined, call: ToolCall, tool: Tool, scope: RunScope) {
  if (!approve) return `Denied: ${tool.name} requires approval and no approve hook is configured.`;
  let answer: unknown;
  try {
    answer = await scope.race(new Promise((resolve) => resolve(approve(call, tool))));
  } catch (error) {
    if (error instanceof Cancelled) throw error;
    if (scope.reason) throw new Cancelled(scope.reason);
    return `Denied: the approve hook failed (${errorMessage(error, 'approve hook error')}), so ${tool.name} did not run.`;
  }
  if (answer === true || answer === 'ask') return answer;
  return `Denied: the approve hook refused this call to ${tool.name}.`;
}

/** A pending call as `pendingApprovals` lists it: the recorded arguments, never the tool's own copy. */
export function pendingApproval(batch: Batch, callId: string): PendingApproval {
  const call = batch.recorded.find((recorded) => recorded.id === callId) as ToolCall;
  return { callId, name: call.name, arguments: call.arguments };
}

/**
 * Decides every `requiresApproval` call of a batch before any call runs, in call order, one at a time:
 * calls already decided, already answered (journaled) or waiting for a person are skipped; calls with
 * invalid arguments are not put to the hook (they fail validation later). Returns the calls that wait
 * for a person (`'ask'`), or `undefined` when the batch can run. Throws `Cancelled` with the run.
 */
export async function decideApprovals(
  batch: Batch,
  context: { registry: ToolRegistry; approve: ApproveHook | undefined; scope: RunScope },
): Promise<PendingApproval[] | undefined> {
  const { registry, scope } = context;
  const waiting: PendingApproval[] = [];
  for (const call of batch.calls) {
    if (batch.results.has(call.id) || batch.decisions.has(call.id)) continue;
    const tool = registry.get(call.name);
    if (tool?.requiresApproval !== true) continue;
    if (batch.asked.has(call.id)) {
      waiting.push(pendingApproval(batch, call.id));
      continue;
    }
    // An interrupted call that is not safe to repeat gets its Interrupted result without a decision.
    if (batch.interrupted.has(call.id) && tool.readOnly !== true && tool.idempotent !== true) continue;
    if (!(await validArguments(registry, call, scope))) continue;
    const answer = await ask(context.approve, call, tool, scope);
    if (answer === 'ask') {
      batch.asked.add(call.id);
      waiting.push(pendingApproval(batch, call.id));
    } else batch.decisions.set(call.id, answer);
  }
  return waiting.length > 0 ? waiting : undefined;
}

/** A person's decision as the loop keeps it: `true`, or the `Denied: ...` text of the call's result. */
export function decisionOf(decision: ApprovalDecision, toolName: string): Decision {
  if (decision === true) return true;
  const reason = typeof decision === 'object' && decision !== null ? decision.reason : undefined;
  return reason ? `Denied: ${reason}` : `Denied: the call to ${toolName} was not approved.`;
}
