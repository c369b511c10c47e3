import { randomUUID } from 'node:crypto';
import { selectContext } from '@bridle/context';
import { ContextLimitError, type Message, type ModelResponse, type Usage } from '@bridle/protocol';
import { dispatchBatch } from './dispatch-batch';
import { errorMessage } from './error-message';
import { type EventSink, eventSink } from './event-sink';
import { recordedCalls } from './recorded-calls';
import { requestModel } from './request-model';
import { type ResolvedOptions, resolveOptions } from './resolve-options';
import { Cancelled, type CancelReason, RunScope } from './run-scope';
import { outputRetryMessage } from './structured-output';
import type { AgentResult, AgentStatus, RunAgentOptions } from './types';

/** How the loop ended: everything of the result that is not the running totals. */
interface Ending {
  status: AgentStatus;
  error?: string;
  answer?: string;
  output?: unknown;
}

/** The running totals of one run. */
interface RunState {
  readonly runId: string;
  readonly messages: Message[];
  steps: number;
  toolCalls: number;
  readonly usage: Usage;
  /** Why the last final answer failed the `output` schema, if it did. */
  outputProblem?: string;
}

const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

function cancelled(reason: CancelReason, timeoutMs: number | undefined): Ending {
  return reason === 'timeout'
    ? { status: 'timeout', error: `The run timed out after ${timeoutMs} ms (timeoutMs).` }
    : { status: 'aborted', error: 'The run was aborted by its signal.' };
}

function stepLimit(options: ResolvedOptions, state: RunState): Ending {
  const why = state.outputProblem ? ` matching the output schema (last problem: ${state.outputProblem})` : '';
  return {
    status: 'step_limit',
    error: `Stopped after maxSteps (${options.maxSteps}) model calls without a final answer${why}.`,
  };
}

function systemPrompt(options: ResolvedOptions): string | undefined {
  if (!options.output) return options.system;
  return options.system ? `${options.system}\n\n${options.output.instructions}` : options.output.instructions;
}

/** A final answer (a response without tool calls): completes the run, or with `output`, asks again. */
async function finalAnswer(options: ResolvedOptions, scope: RunScope, state: RunState, response: ModelResponse) {
  state.messages.push({ role: 'assistant', content: response.content });
  if (!options.output) return { status: 'completed', answer: response.content } satisfies Ending;
  const verdict = await scope.race(Promise.resolve(options.output.check(response.content)));
  if (verdict.ok) return { status: 'completed', answer: response.content, output: verdict.value } satisfies Ending;
  state.outputProblem = verdict.problem;
  state.messages.push({ role: 'user', content: outputRetryMessage(verdict.problem) });
  return undefined;
}

/** The loop: one model call per step, then the batch of tool calls it asked for, until an ending. */
async function loop(options: ResolvedOptions, scope: RunScope, emitter: EventSink, state: RunState): Promise<Ending> {
  const system = systemPrompt(options);
  const tools = options.registry.definitions();
  for (;;) {
    if (scope.reason) return cancelled(scope.reason, options.timeoutMs);
    if (state.steps >= options.maxSteps) return stepLimit(options, state);
    const step = state.steps + 1;

    let messages: readonly Message[] = state.messages;
    if (options.maxContextChars !== undefined) {
      try {
        messages = selectContext(state.messages, options.maxContextChars);
      } catch (error) {
        if (!ContextLimitError.isInstance(error)) throw error;
        return { status: 'context_limit', error: error.message };
      }
    }

    const outcome = await requestModel(options, scope, emitter, { step, system, messages, tools });
    if (!outcome.ok) return { status: 'model_error', error: outcome.error };
    const { response } = outcome;
    const calls = response.toolCalls ?? [];
    state.steps = step;
    const usage = response.usage ?? NO_USAGE;
    state.usage.inputTokens += usage.inputTokens;
    state.usage.outputTokens += usage.outputTokens;
    emitter.emit({ type: 'model_end', step, usage, toolCalls: calls.length, content: response.content });

    if (calls.length === 0) {
      const ending = await finalAnswer(options, scope, state, response);
      if (ending) return ending;
      continue;
    }
    const remaining = options.maxToolCalls - state.toolCalls;
    if (calls.length > remaining)
      return {
        status: 'tool_limit',
        error: `The model asked for ${calls.length} tool calls but only ${remaining} of maxToolCalls (${options.maxToolCalls}) remain; the batch was not run.`,
      };
    state.messages.push({ role: 'assistant', content: response.content, toolCalls: recordedCalls(calls) });
    state.toolCalls += calls.length;
    const results = await dispatchBatch(calls, {
      registry: options.registry,
      approve: options.approve,
      scope,
      emitter,
      runId: state.runId,
      step,
      maxToolResultChars: options.maxToolResultChars,
      toolConcurrency: options.toolConcurrency,
    });
    for (const result of results) state.messages.push(result);
  }
}

/** Runs a validated run to its result; never throws. */
async function execute(options: ResolvedOptions): Promise<AgentResult> {
  const state: RunState = {
    runId: randomUUID(),
    messages: options.messages,
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  const emitter = eventSink({
    runId: state.runId,
    onEvent: options.onEvent,
    onObserverError: options.onObserverError,
  });
  emitter.emit({
    type: 'run_start',
    model: options.model.id,
    ...(options.system === undefined ? {} : { system: options.system }),
    ...(options.prompt === undefined ? {} : { prompt: options.prompt }),
  });
  const scope = new RunScope({ signal: options.signal, timeoutMs: options.timeoutMs });
  let ending: Ending;
  try {
    ending = await loop(options, scope, emitter, state);
  } catch (error) {
    if (error instanceof Cancelled) ending = cancelled(error.reason, options.timeoutMs);
    else if (scope.reason) ending = cancelled(scope.reason, options.timeoutMs);
    // Not expected (every failure is data by now); still, a run that started always resolves.
    else
      ending = { status: 'model_error', error: `Internal error in the agent loop: ${errorMessage(error, 'unknown')}` };
  } finally {
    scope.dispose();
  }
  const result: AgentResult = {
    status: ending.status,
    messages: state.messages,
    steps: state.steps,
    toolCalls: state.toolCalls,
    runId: state.runId,
    usage: state.usage,
  };
  if (ending.answer !== undefined) result.answer = ending.answer;
  if (ending.error !== undefined) result.error = ending.error;
  if ('output' in ending) result.output = ending.output;
  emitter.emit({
    type: 'run_end',
    status: result.status,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: { ...result.usage },
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.answer === undefined ? {} : { answer: result.answer }),
  });
  return result;
}

/**
 * Runs an agent: calls the model, runs the tools it asks for, and repeats until a final answer or a
 * limit. Rejects with `ConfigError` for invalid options, before any model call; once the run has
 * started it always resolves with an {@link AgentResult} (failures become a status, error tool results
 * and events). The returned `messages` always pass `assertTranscript`.
 */
export async function runAgent<Output = unknown>(options: RunAgentOptions<Output>): Promise<AgentResult<Output>> {
  return (await execute(resolveOptions(options as RunAgentOptions))) as AgentResult<Output>;
}
