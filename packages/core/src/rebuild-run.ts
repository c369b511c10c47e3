import {
  type AssistantMessage,
  ConfigError,
  type Message,
  type RunEndBody,
  type RunEvent,
  type RunEventOf,
  type RunManifest,
} from '@bridle/protocol';
import { decisionOf } from './approvals';
import { verifyDecisions } from './decision-signature';
import { type Batch, type Ending, type LoopState, newBatch } from './loop-state';
import { recordedCalls } from './recorded-calls';
import { readState, type StateContent } from './run-state';
import { cancelledText } from './run-tool-call';
import type { OutputCheck } from './structured-output';
import { outputRetryMessage } from './structured-output';
import { routeSubAgentDecisions } from './sub-agent-pause';
import { restoreSubAgents, setUsage } from './sub-agent-state';
import { addUsage } from './usage';

/** A run as its journal (or its state) tells it. */
export interface RebuiltRun {
  /** `'running'` when the last segment has no `run_end` (its process died), else the last `run_end`'s status. */
  status: string;
  /** The last `run_end`, when the last segment has one. */
  end: RunEventOf<'run_end'> | undefined;
  /** Totals and transcript, with the batch to finish (paused or cut by the crash) as `carried`. */
  state: LoopState;
  /** The `sequence` of the next event. */
  nextSequence: number;
  /** A final answer journaled before the crash (the run ends with it, calling nothing). */
  finished?: Ending;
  /** What the run ran with (its first `run_start`), when it was journaled by a release that writes it. */
  manifest?: RunManifest;
}

function corrupt(runId: string, problem: string): never {
  throw new ConfigError(
    `The journal of run ${runId} cannot be resumed: ${problem}. It was not written by @bridle/core, or was changed.`,
  );
}

function appendBatch(state: LoopState, batch: Batch, fill: (callId: string, name: string) => Message): void {
  const assistant: AssistantMessage = { role: 'assistant', content: batch.content, toolCalls: batch.recorded };
  if (batch.providerData !== undefined) assistant.providerData = batch.providerData;
  state.messages.push(assistant);
  for (const call of batch.recorded) {
    const known = batch.results.get(call.id);
    state.messages.push(
      known ? { role: 'tool', callId: call.id, name: call.name, ...known } : fill(call.id, call.name),
    );
  }
  state.toolCalls += batch.recorded.length;
}

/**
 * Restores a paused batch's decisions from the state its `run_end` carried. Decisions whose signature does
 * not verify with the run's key are left out: their calls are put to `approve` again.
 */
function restoreDecisions(batch: Batch, saved: StateContent['batch'], runId: string, key: Uint8Array): void {
  const subject = {
    kind: 'state',
    runId,
    step: batch.step,
    calls: batch.recorded,
    decisions: saved.decisions,
  } as const;
  if (verifyDecisions(key, subject, saved.decisionsSignature))
    for (const [callId, decision] of Object.entries(saved.decisions)) batch.decisions.set(callId, decision);
  for (const callId of saved.asked) batch.asked.add(callId);
  for (const [callId, deadline] of Object.entries(saved.deadlines ?? {}))
    if (typeof deadline === 'string' && !Number.isNaN(Date.parse(deadline))) batch.deadlines.set(callId, deadline);
  restoreSubAgents(batch, saved);
}

/** Applies a resumed segment's journaled decisions, when their signature verifies (else they are asked again). */
function applyApprovals(batch: Batch, start: RunEventOf<'run_start'>, runId: string, key: Uint8Array): void {
  const approvals = start.approvals ?? {};
  const subject = { kind: 'approvals', runId, step: batch.step, calls: batch.recorded, decisions: approvals } as const;
  if (!verifyDecisions(key, subject, start.approvalsSignature)) {
    // Not decided after all: the calls go to `approve` again (a terminal asks; without one they are denied).
    for (const callId of Object.keys(approvals)) batch.asked.delete(callId);
    return;
  }
  const routed = routeSubAgentDecisions(batch.subAgents, batch.subDecisions, approvals);
  for (const [callId, decision] of Object.entries(approvals)) {
    if (routed.has(callId)) continue;
    const call = batch.recorded.find((recorded) => recorded.id === callId);
    if (!call) continue;
    batch.asked.delete(callId);
    batch.decisions.set(callId, decisionOf(decision, call.name));
  }
}

/**
 * Rebuilds a run from its journal: the transcript, totals, the batch to finish, and how the last
 * segment ended. A final answer is checked again against `output` (the check is deterministic), so
 * the retry message a failed check appended is restored. Throws `ConfigError` for a journal that
 * @bridle/core did not write.
 */
export async function rebuildFromJournal(
  runId: string,
  events: readonly RunEvent[],
  output: OutputCheck | undefined,
  key: Uint8Array,
): Promise<RebuiltRun> {
  const first = events[0];
  if (first?.type !== 'run_start') corrupt(runId, 'it does not begin with run_start');
  const initial =
    first.messages ?? (first.prompt === undefined ? undefined : [{ role: 'user', content: first.prompt }]);
  if (!initial) corrupt(runId, 'its run_start has neither prompt nor messages');
  const state: LoopState = {
    runId,
    messages: [...(initial as Message[])],
    steps: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
  };
  let batch: Batch | undefined;
  let end: RunEventOf<'run_end'> | undefined;
  let finished: Ending | undefined;
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as RunEvent;
    if (event.type !== 'run_end' && event.type !== 'input') end = undefined;
    switch (event.type) {
      case 'run_start':
        finished = undefined;
        if (batch && event.approvals) applyApprovals(batch, event, runId, key);
        break;
      case 'model_end': {
        state.steps = event.step;
        addUsage(state.usage, event.usage);
        state.answeredBy = event.model;
        state.finishReason = event.finishReason;
        if (event.toolCalls > 0) {
          const calls = event.response?.toolCalls;
          if (!Array.isArray(calls) || calls.length !== event.toolCalls)
            corrupt(runId, `the model_end of step ${event.step} lacks its tool calls`);
          batch = newBatch(event.step, event.content, event.response?.providerData, recordedCalls(calls), calls);
          break;
        }
        const providerData = event.response?.providerData;
        state.messages.push(
          providerData === undefined
            ? { role: 'assistant', content: event.content }
            : { role: 'assistant', content: event.content, providerData },
        );
        if (!output) {
          finished = { status: 'completed', answer: event.content };
          break;
        }
        const verdict = await output.check(event.content);
        const next = events[index + 1];
        if (verdict.ok) finished = { status: 'completed', answer: event.content, output: verdict.value };
        // A check cut by the run's cancellation appended nothing.
        else if (!(next?.type === 'run_end' && (next.status === 'timeout' || next.status === 'aborted'))) {
          state.outputProblem = verdict.problem;
          state.messages.push({ role: 'user', content: outputRetryMessage(verdict.problem) });
        }
        break;
      }
      case 'tool_start':
        batch?.interrupted.add(event.callId);
        break;
      case 'tool_end':
        // A sub-agent's usage, counted into the run when the call ended.
        if (event.usage) addUsage(state.usage, event.usage);
        if (!batch) break;
        batch.interrupted.delete(event.callId);
        batch.results.set(event.callId, { content: event.result, isError: event.isError });
        if (batch.results.size === batch.recorded.length) {
          appendBatch(state, batch, () => corrupt(runId, 'a tool result is missing'));
          batch = undefined;
          appendPendingInputs(state);
        }
        break;
      case 'input': {
        // Delivered at a step boundary; one journaled while a batch was open (at a pause, or sent to a paused
        // run) joins the transcript once the batch is appended.
        finished = undefined;
        const input = event.by === undefined ? { content: event.content } : { content: event.content, by: event.by };
        if (batch) state.pendingInputs = [...(state.pendingInputs ?? []), input];
        else state.messages.push({ role: 'user', content: event.content });
        break;
      }
      case 'run_end':
        end = event;
        finished = undefined;
        if (event.status === 'awaiting_approval') {
          if (!batch) corrupt(runId, 'a pause has no batch');
          const paused = readState(event.state);
          restoreDecisions(batch as Batch, paused.batch, runId, key);
          // The paused state's usage counts its sub-agents' too, which no model_end of this run holds.
          setUsage(state.usage, paused.usage);
        } else if (batch) {
          endBatch(state, batch, event);
          batch = undefined;
          appendPendingInputs(state);
        }
        break;
    }
  }
  if (batch) state.carried = batch;
  const last = events[events.length - 1] as RunEvent;
  return {
    status: end ? end.status : 'running',
    end,
    state,
    nextSequence: last.sequence + 1,
    ...(finished && !end ? { finished } : {}),
    ...(first.manifest === undefined ? {} : { manifest: first.manifest }),
  };
}

/** Input that waited for a batch, now appended: it joins the transcript after the batch's tool messages. */
function appendPendingInputs(state: LoopState): void {
  if (!state.pendingInputs) return;
  for (const input of state.pendingInputs) state.messages.push({ role: 'user', content: input.content });
  state.pendingInputs = undefined;
}

/** A batch the run ended in: a rejected batch (tool_limit) was never appended; a cut one was, with fills. */
function endBatch(state: LoopState, batch: Batch, end: RunEndBody): void {
  if (end.status === 'tool_limit') return;
  const reason = end.status === 'timeout' ? 'timeout' : 'aborted';
  appendBatch(state, batch, (callId, name) => ({
    role: 'tool',
    callId,
    name,
    content: cancelledText(reason, name, batch.interrupted.has(callId)),
    isError: true,
  }));
}

/** Rebuilds a paused run from its `state` (no store). */
export function rebuildFromState(content: StateContent, key: Uint8Array): RebuiltRun {
  const saved = content.batch;
  const batch = newBatch(saved.step, saved.content, saved.providerData, recordedCalls(saved.calls), saved.calls);
  restoreDecisions(batch, saved, content.runId, key);
  const state: LoopState = {
    runId: content.runId,
    messages: [...(content.messages as Message[])],
    steps: content.steps,
    toolCalls: content.toolCalls,
    usage: { ...content.usage },
    carried: batch,
  };
  if (content.outputProblem !== undefined) state.outputProblem = content.outputProblem;
  return { status: 'awaiting_approval', end: undefined, state, nextSequence: content.nextSequence };
}
