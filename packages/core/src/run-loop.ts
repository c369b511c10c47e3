import { selectContext } from '@bridle/context';
import type { OwnedEventInput } from '@bridle/events';
import {
  ContextLimitError,
  type Message,
  type ModelEndBody,
  type ModelResponse,
  type ToolCall,
  type Usage,
} from '@bridle/protocol';
import { errorMessage, redactCredentials } from '@bridle/protocol/internal';
import { budgetEnding, estimateStep } from './budget';
import { type Ending, newBatch } from './loop-state';
import { recordedCalls } from './recorded-calls';
import { requestModel } from './request-model';
import type { ResolvedOptions } from './resolve-options';
import { runBatch } from './run-batch';
import type { RunContext } from './run-context';
import { deliverInput } from './run-inbox';
import type { CancelReason } from './run-scope';
import { type OutputCheck, outputRetryMessage } from './structured-output';
import type { BudgetGate, BudgetReservation } from './types';
import { uniqueCallIds } from './unique-call-ids';
import { addUsage } from './usage';

const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });
const NO_CALLS: readonly ToolCall[] = Object.freeze([]);

/** A step's `model_end` (fields written one by one, in the journal's order: no spreads of small objects). */
function modelEndEvent(
  step: number,
  usage: Usage,
  toolCalls: number,
  response: ModelResponse,
  answeredBy: string | undefined,
  recorded: ToolCall[] | undefined,
): OwnedEventInput {
  const event: Omit<ModelEndBody, 'durationMs'> & OwnedEventInput = {
    type: 'model_end',
    // The stamp's keys, written by emitOwned.
    runId: '',
    sequence: 0,
    timestamp: '',
    step,
    usage,
    toolCalls,
    content: response.content,
  };
  if (response.finishReason !== undefined) event.finishReason = response.finishReason;
  if (answeredBy !== undefined) event.model = answeredBy;
  if (recorded !== undefined || response.providerData !== undefined) {
    const journaled: NonNullable<ModelEndBody['response']> = {};
    if (recorded !== undefined) journaled.toolCalls = recorded;
    if (response.providerData !== undefined) journaled.providerData = response.providerData;
    event.response = journaled;
  }
  return event;
}

/** The ending of a cancelled run. */
export function cancelled(reason: CancelReason, timeoutMs: number | undefined): Ending {
  return reason === 'timeout'
    ? { status: 'timeout', error: `The run timed out after ${timeoutMs} ms (timeoutMs).` }
    : { status: 'aborted', error: 'The run was aborted by its signal.' };
}

function stepLimit(options: ResolvedOptions, outputProblem: string | undefined): Ending {
  const why = outputProblem ? ` matching the output schema (last problem: ${outputProblem})` : '';
  return {
    status: 'step_limit',
    error: `Stopped after maxSteps (${options.maxSteps}) model calls without a final answer${why}.`,
  };
}

function systemPrompt(options: ResolvedOptions): string | undefined {
  if (!options.output) return options.system;
  return options.system ? `${options.system}\n\n${options.output.instructions}` : options.output.instructions;
}

/**
 * A final answer (a response without tool calls): completes the run, or with `output`, asks again. Without
 * `output` it is decided at once (no promise: most runs end here).
 */
function finalAnswer(run: RunContext, response: ModelResponse): Ending | undefined | Promise<Ending | undefined> {
  const { options, state } = run;
  state.messages.push(
    response.providerData === undefined
      ? { role: 'assistant', content: response.content }
      : { role: 'assistant', content: response.content, providerData: response.providerData },
  );
  if (!options.output) return { status: 'completed', answer: response.content };
  return checkedAnswer(run, options.output, response.content);
}

/** A final answer checked against the `output` schema: completes the run, or asks again. */
async function checkedAnswer(run: RunContext, output: OutputCheck, content: string): Promise<Ending | undefined> {
  const { state } = run;
  const verdict = await run.scope.race(Promise.resolve(output.check(content)));
  if (verdict.ok) return { status: 'completed', answer: content, output: verdict.value };
  state.outputProblem = verdict.problem;
  state.messages.push({ role: 'user', content: outputRetryMessage(verdict.problem) });
  return undefined;
}

/**
 * Asks the budget gate before a model call. A gate that fails (its Redis down, a bug) stops the run with
 * `budget_limit` saying so: a quota that cannot be checked is not taken as room.
 */
async function reserveStep(
  run: RunContext,
  gate: BudgetGate,
  step: number,
  system: string | undefined,
  messages: readonly Message[],
): Promise<BudgetReservation> {
  const { state, scope } = run;
  const estimate = estimateStep(system, messages, state.usage, state.steps);
  try {
    const usage = { ...state.usage };
    return await scope.race(Promise.resolve(gate.reserve({ runId: state.runId, step, usage, estimate })));
  } catch (error) {
    if (scope.reason) throw error;
    return { stop: `The budget gate failed before model call ${step}: ${errorMessage(error)}` };
  }
}

/** Reconciles a reservation with the call's real usage; a failure here changes nothing in the run. */
async function settleStep(
  run: RunContext,
  reservation: { settle(actual: Usage): void | Promise<void> },
  actual: Usage,
): Promise<void> {
  try {
    await run.scope.race(Promise.resolve(reservation.settle(actual)));
  } catch (error) {
    if (run.scope.reason) throw error;
  }
}

/**
 * The loop: one model call per step, then the batch of tool calls it asked for, until an ending. A
 * batch carried over from a pause or a crash is finished first. With a journal, each model response is
 * durable before the loop uses it.
 */
export async function runLoop(run: RunContext): Promise<Ending> {
  const { options, scope, emitter, state, journal } = run;
  const system = systemPrompt(options);
  const tools = options.registry.definitions();
  for (;;) {
    const carried = state.carried;
    if (carried) {
      state.carried = undefined;
      const ending = await runBatch(run, carried);
      if (ending) return ending;
    }
    if (scope.reason) return cancelled(scope.reason, options.timeoutMs);
    if (state.steps >= options.maxSteps) return stepLimit(options, state.outputProblem);
    const step = state.steps + 1;
    if (options.budget) {
      const ending = budgetEnding(options.budget, state.usage, step);
      if (ending) return ending;
    }
    // A step boundary: steering input joins the transcript here, never inside a batch.
    deliverInput(run);

    let messages: readonly Message[] = state.messages;
    if (options.maxContextChars !== undefined) {
      try {
        messages = selectContext(state.messages, options.maxContextChars);
      } catch (error) {
        if (!ContextLimitError.isInstance(error)) throw error;
        return { status: 'context_limit', error: error.message };
      }
    }

    // Every tool result is durable before the next model call (usually already: each call's tool_end is
    // flushed; this catches results that ran no tool, such as a denied call; an empty flush writes nothing).
    if (journal && !journal.idle) await journal.flush();
    let reservation: { settle(actual: Usage): void | Promise<void> } | undefined;
    if (options.budget?.gate) {
      const answer = await reserveStep(run, options.budget.gate, step, system, messages);
      if ('stop' in answer) return { status: 'budget_limit', error: answer.stop };
      reservation = answer;
    }
    const outcome = await requestModel(run, { step, system, messages, tools });
    if (reservation) await settleStep(run, reservation, outcome.ok ? (outcome.response.usage ?? NO_USAGE) : NO_USAGE);
    if (!outcome.ok) return { status: 'model_error', error: outcome.error };
    const { response } = outcome;
    const calls = response.toolCalls === undefined ? NO_CALLS : uniqueCallIds(state, response.toolCalls);
    state.steps = step;
    // The id of the model that answered (behind a fallback) is journaled and returned: no credentials in it.
    const answeredBy = response.model === undefined ? undefined : redactCredentials(response.model);
    state.answeredBy = answeredBy;
    state.finishReason = response.finishReason;
    const usage = response.usage ?? NO_USAGE;
    addUsage(state.usage, usage);
    const recorded = calls.length === 0 ? undefined : recordedCalls(calls);
    emitter.emitOwned(modelEndEvent(step, usage, calls.length, response, answeredBy, recorded));
    // A model response is durable before the run acts on it. With tool calls, the first `tool_start` flush
    // (or the one before asking for approvals) carries it: one append fewer per step.
    if (recorded === undefined) {
      if (journal) await journal.flush();
      const answered = finalAnswer(run, response);
      const ending = answered instanceof Promise ? await answered : answered;
      // Input that came while the model answered is not dropped: the run goes on with it, steps allowing.
      if (ending && !(ending.status === 'completed' && run.inbox.waiting && state.steps < options.maxSteps))
        return ending;
      continue;
    }
    const ending = await runBatch(run, newBatch(step, response.content, response.providerData, calls, recorded));
    if (ending) return ending;
  }
}
