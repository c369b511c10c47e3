import { boundToolResult } from '@bridle/context';
import type { Tool, ToolCall, ToolMessage } from '@bridle/protocol';
import { errorMessage, isThenable } from '@bridle/protocol/internal';
import type { ToolRegistry } from '@bridle/registry';
import type { EventSink } from './event-sink';
import type { Journal } from './journal';
import type { Decision } from './loop-state';
import { RUN_LINK, type RunLink } from './run-link';
import type { CancelReason, RunScope } from './run-scope';
import { type ToolOutcome, toolResultText } from './tool-result-text';

/** What running one tool call needs from the run. */
export interface ToolCallContext {
  registry: ToolRegistry;
  scope: RunScope;
  emitter: EventSink;
  runId: string;
  step: number;
  maxToolResultChars: number;
  /** Decisions on the batch's `requiresApproval` calls (made before the batch runs); none means denied. */
  decisions: ReadonlyMap<string, Decision> | undefined;
  /** Calls a crash may have cut (resumed runs): run again only when the tool is `readOnly` or `idempotent`. */
  interrupted: ReadonlySet<string> | undefined;
  /** With a store: `tool_start` is durable before the tool runs, `tool_end` before the loop goes on. */
  journal: Journal | undefined;
  /** The run, as a sub-agent tool sees it. */
  link: RunLink | undefined;
}

/** The result of an interrupted call that is not safe to run twice. */
export const INTERRUPTED = 'Interrupted: this call may or may not have run; check before retrying';

type Validation = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** The text of a result the run's cancellation cut short (`started`: the call was already running). */
export function cancelledText(reason: CancelReason, toolName: string, started: boolean): string {
  const when = started ? 'finished' : 'started';
  return reason === 'timeout'
    ? `Timed out: the run's deadline passed before ${toolName} ${when}.`
    : `Cancelled: the run was aborted before ${toolName} ${when}.`;
}

const failed = (content: string): ToolOutcome => ({ content, isError: true });

/** Turns a rejection of the async part of a call into an outcome: cancelled, or the failure itself. */
function settled(
  pending: Promise<ToolOutcome>,
  call: ToolCall,
  context: ToolCallContext,
  what: string,
): Promise<ToolOutcome> {
  return pending.catch((error: unknown) => {
    const { reason } = context.scope;
    if (reason) return failed(cancelledText(reason, call.name, true));
    return failed(errorMessage(error, `Tool ${call.name} ${what}`));
  });
}

/**
 * Calls `execute`. A synchronous tool is handled without a single promise (this is the hot path);
 * a promise is raced against the run's cancellation, so a tool that ignores its signal cannot hold the run.
 */
function execute(
  tool: Tool,
  value: unknown,
  call: ToolCall,
  context: ToolCallContext,
): ToolOutcome | Promise<ToolOutcome> {
  const { scope } = context;
  const child = scope.child();
  const toolContext = {
    get signal() {
      return child.signal;
    },
    callId: call.id,
    runId: context.runId,
    idempotencyKey: `${context.runId}:${call.id}`,
    [RUN_LINK]: context.link,
  };
  let result: unknown;
  try {
    result = tool.execute(value, toolContext);
  } catch (error) {
    child.release();
    return failed(errorMessage(error, `Tool ${tool.name} failed`));
  }
  if (!isThenable(result)) {
    child.release();
    return toolResultText(result, tool.name);
  }
  const pending = scope.race(result).then((resolved) => toolResultText(resolved, tool.name));
  return settled(pending, call, context, 'failed').finally(() => child.release());
}

function afterValidation(
  validation: Validation,
  tool: Tool,
  call: ToolCall,
  context: ToolCallContext,
): ToolOutcome | Promise<ToolOutcome> {
  if (!validation.ok) return failed(`Invalid arguments: ${validation.errors.join('; ')}`);
  if (!tool.requiresApproval) return execute(tool, validation.value, call, context);
  const decision = context.decisions?.get(call.id);
  if (decision === true) return execute(tool, validation.value, call, context);
  // Decisions are made before the batch runs; a call without one is denied (fail closed).
  return failed(decision ?? `Denied: ${tool.name} requires approval and no approve hook is configured.`);
}

function outcomeOf(call: ToolCall, context: ToolCallContext): ToolOutcome | Promise<ToolOutcome> {
  const { registry, scope } = context;
  const tool = registry.get(call.name);
  if (!tool) return failed(`Unknown tool: ${call.name}`);
  if (context.interrupted?.has(call.id) && tool.readOnly !== true && tool.idempotent !== true)
    return failed(INTERRUPTED);
  let validation: Validation;
  try {
    // Synchronous first: nearly every schema validates synchronously, and this path allocates no promise.
    validation = registry.validate(call.name, call.arguments);
  } catch {
    // Only a Standard Schema that validates asynchronously throws here: await it, abort-aware.
    const checked = scope.race(registry.validateAsync(call.name, call.arguments));
    return settled(
      checked.then((result) => afterValidation(result, tool, call, context)),
      call,
      context,
      'could not be validated',
    );
  }
  return afterValidation(validation, tool, call, context);
}

function toolMessage(call: ToolCall, outcome: ToolOutcome, context: ToolCallContext): ToolMessage {
  const content = boundToolResult(outcome.content, context.maxToolResultChars);
  const { isError } = outcome;
  context.emitter.emit({
    type: 'tool_end',
    step: context.step,
    callId: call.id,
    name: call.name,
    isError,
    result: content,
  });
  return { role: 'tool', callId: call.id, name: call.name, content, isError };
}

/** A call of a journaled run: `tool_start` durable before the tool runs, `tool_end` before the loop goes on. */
async function journaled(call: ToolCall, context: ToolCallContext, journal: Journal): Promise<ToolMessage> {
  await journal.flush();
  const message = toolMessage(call, await outcomeOf(call, context), context);
  await journal.flush();
  return message;
}

/**
 * Runs one tool call to a tool message, never throwing or rejecting: an unknown tool, invalid arguments
 * (checked before `execute`), a denied approval, a throwing tool, an unserializable result and the
 * run's cancellation all become `isError` results. The content is bounded by `maxToolResultChars`.
 * Emits `tool_start` and `tool_end`. Returns synchronously when nothing had to be awaited. Only a
 * journal that cannot be written rejects (with `JournalError`), and then the tool did not run.
 */
export function runToolCall(call: ToolCall, context: ToolCallContext): ToolMessage | Promise<ToolMessage> {
  context.emitter.emit({
    type: 'tool_start',
    step: context.step,
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
  });
  const { journal } = context;
  if (journal) return journaled(call, context, journal);
  const outcome = outcomeOf(call, context);
  return outcome instanceof Promise
    ? outcome.then((settledOutcome) => toolMessage(call, settledOutcome, context))
    : toolMessage(call, outcome, context);
}
