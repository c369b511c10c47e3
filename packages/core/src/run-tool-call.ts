import { boundToolResult } from '@bridle/context';
import type { Tool, ToolCall, ToolMessage } from '@bridle/protocol';
import { errorMessage, isThenable } from '@bridle/protocol/internal';
import type { ValidationResult } from '@bridle/registry';
import { JournalError } from './journal';
import type { Batch } from './loop-state';
import type { RunContext } from './run-context';
import type { CancelReason } from './run-scope';
import { SubAgentPause } from './sub-agent-pause';
import { CallContext } from './tool-context';
import { type ToolOutcome, toolResultText } from './tool-result-text';

/** The result of an interrupted call that is not safe to run twice. */
export const INTERRUPTED = 'Interrupted: this call may or may not have run; check before retrying';

/** The text of a result the run's cancellation cut short (`started`: the call was already running). */
export function cancelledText(reason: CancelReason, toolName: string, started: boolean): string {
  const when = started ? 'finished' : 'started';
  return reason === 'timeout'
    ? `Timed out: the run's deadline passed before ${toolName} ${when}.`
    : `Cancelled: the run was aborted before ${toolName} ${when}.`;
}

const failed = (content: string): ToolOutcome => ({ content, isError: true });

/** A call that may run (`tool` with its validated `value`), or the result that refuses it. */
type Admission = { tool: Tool; value: unknown; refused?: undefined } | { refused: ToolOutcome };

/**
 * The rules a call passes before `execute`, in order: a known tool; not cut by a crash unless safe to run
 * again (`readOnly` or `idempotent`); valid arguments; for `requiresApproval`, a decision made before the
 * batch ran (none means denied: fail closed). Synchronous and pure.
 */
function admit(call: ToolCall, validation: ValidationResult, run: RunContext, batch: Batch): Admission {
  const tool = run.options.registry.get(call.name);
  if (!tool) return { refused: failed(`Unknown tool: ${call.name}`) };
  if (batch.interrupted.has(call.id) && tool.readOnly !== true && tool.idempotent !== true)
    return { refused: failed(INTERRUPTED) };
  if (!validation.ok) return { refused: failed(`Invalid arguments: ${validation.errors.join('; ')}`) };
  if (tool.requiresApproval) {
    const decision = batch.decisions.get(call.id);
    if (decision !== true)
      return {
        refused: failed(decision ?? `Denied: ${tool.name} requires approval and no approve hook is configured.`),
      };
  }
  return { tool, value: validation.value };
}

/**
 * The outcome of a rejection after the call started: the run's cancellation, a sub-agent's pause for
 * approval (the parent pauses too), or the failure itself.
 */
function rejected(error: unknown, call: ToolCall, run: RunContext, what: string): ToolOutcome {
  const { reason } = run.scope;
  if (reason) return failed(cancelledText(reason, call.name, true));
  if (SubAgentPause.isInstance(error)) return { content: '', isError: true, paused: error.paused };
  // A sub-agent whose journal could not be written stopped as if its process had died: so does this run.
  if (JournalError.isInstance(error)) throw error;
  return failed(errorMessage(error, `Tool ${call.name} ${what}`));
}

/**
 * Calls `execute` with the call's own signal. A tool that returns a value gives its outcome at once; a
 * promise is raced against the run's cancellation (a tool that ignores its signal cannot hold the run)
 * and gives a promise of the outcome that never rejects.
 */
function execute(
  tool: Tool,
  value: unknown,
  call: ToolCall,
  run: RunContext,
  batch: Batch,
): ToolOutcome | Promise<ToolOutcome> {
  const { scope } = run;
  const child = scope.child();
  const toolContext = new CallContext(call.id, run.state.runId, child, run.link, batch);
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
  return scope
    .race(result)
    .then(
      (resolved) => toolResultText(resolved, tool.name),
      (error: unknown) => rejected(error, call, run, 'failed'),
    )
    .finally(() => child.release());
}

/**
 * Emits `tool_end` and makes the tool message, its content bounded by `maxToolResultChars`. A call whose
 * sub-agent paused gets neither: the batch records the pause (see `pauseForSubAgents`).
 */
function toolMessage(call: ToolCall, outcome: ToolOutcome, run: RunContext, batch: Batch): ToolMessage {
  if (outcome.paused) {
    // The usage it added so far is in the paused state's usage; its tool_end (on resume) carries the rest.
    batch.callUsage?.delete(call.id);
    batch.subAgents.set(call.id, outcome.paused);
    batch.subDecisions.delete(call.id);
    batch.pausing = true;
    return { role: 'tool', callId: call.id, name: call.name, content: '', isError: true };
  }
  if (batch.subAgents.size > 0) {
    batch.subAgents.delete(call.id);
    batch.subDecisions.delete(call.id);
  }
  const content = boundToolResult(outcome.content, run.options.maxToolResultChars);
  const { isError } = outcome;
  const usage = batch.callUsage?.get(call.id);
  if (usage) batch.callUsage?.delete(call.id);
  run.emitter.emit({
    type: 'tool_end',
    step: batch.step,
    callId: call.id,
    name: call.name,
    isError,
    result: content,
    ...(usage ? { usage } : {}),
  });
  return { role: 'tool', callId: call.id, name: call.name, content, isError };
}

/**
 * The same path as {@link runToolCall}, awaiting every part: for a journaled run (`tool_start` durable
 * before the tool runs, `tool_end` before the loop goes on) and for a schema that validates asynchronously.
 */
async function runToolCallAsync(call: ToolCall, run: RunContext, batch: Batch): Promise<ToolMessage> {
  const { journal, scope, options } = run;
  if (journal) await journal.flush();
  let outcome: ToolOutcome;
  try {
    const validation = await scope.race(options.registry.validateAsync(call.name, call.arguments));
    const admission = admit(call, validation, run, batch);
    outcome = admission.refused ?? (await execute(admission.tool, admission.value, call, run, batch));
  } catch (error) {
    outcome = rejected(error, call, run, 'could not be validated');
  }
  const message = toolMessage(call, outcome, run, batch);
  if (journal) await journal.flush();
  return message;
}

/**
 * Runs one tool call of `batch` to a tool message, never throwing or rejecting: an unknown tool, invalid
 * arguments (checked before `execute`), a denied approval, a throwing tool, an unserializable result and
 * the run's cancellation all become `isError` results. Emits `tool_start` and `tool_end`. Only a journal
 * that cannot be written rejects (with `JournalError`), and then the tool did not run.
 *
 * Read it top to bottom: validate, {@link admit}, {@link execute}, make the message. It returns
 * synchronously when nothing had to be awaited (a synchronous schema and tool, the common case and the
 * loop's hot path: no promise is made); otherwise the only promise is the one `execute` returned, or the
 * whole call goes through {@link runToolCallAsync}.
 */
export function runToolCall(call: ToolCall, run: RunContext, batch: Batch): ToolMessage | Promise<ToolMessage> {
  run.emitter.emit({
    type: 'tool_start',
    step: batch.step,
    callId: call.id,
    name: call.name,
    arguments: call.arguments,
  });
  if (run.journal) return runToolCallAsync(call, run, batch);
  let validation: ValidationResult;
  try {
    validation = run.options.registry.validate(call.name, call.arguments);
  } catch {
    // Only a Standard Schema that validates asynchronously throws here.
    return runToolCallAsync(call, run, batch);
  }
  const admission = admit(call, validation, run, batch);
  if (admission.refused) return toolMessage(call, admission.refused, run, batch);
  const outcome = execute(admission.tool, admission.value, call, run, batch);
  return isThenable(outcome)
    ? outcome.then((settled) => toolMessage(call, settled, run, batch))
    : toolMessage(call, outcome, run, batch);
}
