import { boundToolResult } from '@bridle/context';
import type { RunEmitter } from '@bridle/events';
import type { Tool, ToolCall, ToolMessage } from '@bridle/protocol';
import type { ToolRegistry } from '@bridle/registry';
import { errorMessage } from './error-message';
import { Cancelled, type CancelReason, type RunScope } from './run-scope';
import { type ToolOutcome, toolResultText } from './tool-result-text';
import type { ApproveHook } from './types';

/** What running one tool call needs from the run. */
export interface ToolCallContext {
  registry: ToolRegistry;
  approve: ApproveHook | undefined;
  scope: RunScope;
  emitter: RunEmitter;
  runId: string;
  step: number;
  maxToolResultChars: number;
}

/** The text of a result the run's cancellation cut short (`started`: the call was already running). */
export function cancelledText(reason: CancelReason, toolName: string, started: boolean): string {
  const when = started ? 'finished' : 'started';
  return reason === 'timeout'
    ? `Timed out: the run's deadline passed before ${toolName} ${when}.`
    : `Cancelled: the run was aborted before ${toolName} ${when}.`;
}

const failed = (content: string): ToolOutcome => ({ content, isError: true });

async function askApproval(call: ToolCall, tool: Tool, context: ToolCallContext): Promise<string | undefined> {
  const { approve } = context;
  if (!approve) return `Denied: ${tool.name} requires approval and no approve hook is configured.`;
  let approved: unknown;
  try {
    approved = await context.scope.race(new Promise((resolve) => resolve(approve(call, tool))));
  } catch (error) {
    if (error instanceof Cancelled) throw error;
    return `Denied: the approve hook failed (${errorMessage(error, 'approve hook error')}), so ${tool.name} did not run.`;
  }
  return approved === true ? undefined : `Denied: the approve hook refused this call to ${tool.name}.`;
}

async function execute(tool: Tool, value: unknown, call: ToolCall, context: ToolCallContext): Promise<ToolOutcome> {
  const { scope } = context;
  const child = scope.child();
  try {
    const toolContext = { signal: child.signal, callId: call.id, runId: context.runId };
    const result = await scope.race(new Promise((resolve) => resolve(tool.execute(value, toolContext))));
    return toolResultText(result, tool.name);
  } catch (error) {
    if (error instanceof Cancelled || scope.reason) throw error;
    return failed(errorMessage(error, `Tool ${tool.name} failed`));
  } finally {
    child.release();
  }
}

async function outcomeOf(call: ToolCall, context: ToolCallContext): Promise<ToolOutcome> {
  const tool = context.registry.get(call.name);
  if (!tool) return failed(`Unknown tool: ${call.name}`);
  try {
    const validation = await context.scope.race(context.registry.validateAsync(call.name, call.arguments));
    if (!validation.ok) return failed(`Invalid arguments: ${validation.errors.join('; ')}`);
    if (tool.requiresApproval) {
      const denial = await askApproval(call, tool, context);
      if (denial !== undefined) return failed(denial);
    }
    return await execute(tool, validation.value, call, context);
  } catch (error) {
    if (context.scope.reason) return failed(cancelledText(context.scope.reason, call.name, true));
    return failed(`Tool ${call.name} could not run: ${errorMessage(error, 'validation failed')}`);
  }
}

/**
 * Runs one tool call to a tool message, never throwing: an unknown tool, invalid arguments (checked
 * before `execute`), a denied approval, a throwing tool, an unserializable result and the run's
 * cancellation all become `isError` results. The content is bounded by `maxToolResultChars`.
 * Emits `tool_start` and `tool_end`.
 */
export async function runToolCall(call: ToolCall, context: ToolCallContext): Promise<ToolMessage> {
  const { emitter, step } = context;
  emitter.emit({ type: 'tool_start', step, callId: call.id, name: call.name, arguments: call.arguments });
  const outcome = await outcomeOf(call, context);
  const content = boundToolResult(outcome.content, context.maxToolResultChars);
  emitter.emit({ type: 'tool_end', step, callId: call.id, name: call.name, isError: outcome.isError, result: content });
  return { role: 'tool', callId: call.id, name: call.name, content, isError: outcome.isError };
}
