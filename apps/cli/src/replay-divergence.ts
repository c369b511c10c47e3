import { displayText } from '@bridle/models';
import type { RunEvent } from '@bridle/protocol';
import { oneLinePreview } from './render-run';

/** One tool call of a run as replay compares it. */
export interface ToolOutcome {
  step: number;
  callId: string;
  name: string;
  arguments: unknown;
  isError: boolean;
  result: string;
}

/** How a run ended, as replay compares it. */
export interface RunOutcomeSummary {
  status: string;
  steps: number;
  toolCalls: number;
  answer?: string;
}

/**
 * The tool calls of one run (its own, not a sub-agent's), in the order their results came, each with the
 * arguments of its `tool_start`. A call journaled twice (crash recovery ran it again) counts once, last.
 */
export function toolOutcomes(events: readonly RunEvent[], runId: string): ToolOutcome[] {
  const args = new Map<string, unknown>();
  const outcomes = new Map<string, ToolOutcome>();
  for (const event of events) {
    if (event.runId !== runId || event.parentRunId !== undefined) continue;
    if (event.type === 'tool_start') args.set(event.callId, event.arguments);
    if (event.type === 'tool_end') {
      outcomes.delete(event.callId);
      outcomes.set(event.callId, {
        step: event.step,
        callId: event.callId,
        name: event.name,
        arguments: args.get(event.callId),
        isError: event.isError,
        result: event.result,
      });
    }
  }
  return [...outcomes.values()];
}

/** The last `run_end` of the run: its status, steps, tool calls and answer. */
export function runOutcome(events: readonly RunEvent[], runId: string): RunOutcomeSummary | undefined {
  const end = [...events]
    .reverse()
    .find(
      (event): event is Extract<RunEvent, { type: 'run_end' }> =>
        event.type === 'run_end' && event.runId === runId && event.parentRunId === undefined,
    );
  if (end === undefined) return undefined;
  return {
    status: end.status,
    steps: end.steps,
    toolCalls: end.toolCalls,
    ...(end.answer === undefined ? {} : { answer: end.answer }),
  };
}

const show = (value: unknown) => displayText(oneLinePreview(value, 160));

/**
 * The first difference between a recorded run and its replay, as one sentence naming the step and the
 * call, or undefined when they match: the tool calls (name, arguments, error or not, result text) in
 * order, then the status, steps, tool call count and answer.
 */
export function firstDivergence(
  recorded: { tools: ToolOutcome[]; outcome: RunOutcomeSummary | undefined },
  replayed: { tools: ToolOutcome[]; outcome: RunOutcomeSummary },
): string | undefined {
  const count = Math.max(recorded.tools.length, replayed.tools.length);
  for (let index = 0; index < count; index++) {
    const before = recorded.tools[index];
    const after = replayed.tools[index];
    if (before === undefined && after !== undefined)
      return `step ${after.step}: the replay made a tool call the recording does not have: ${displayText(after.name)} ${show(after.arguments)}`;
    if (after === undefined && before !== undefined)
      return `step ${before.step}: the recording has a call the replay did not make: ${displayText(before.name)} ${show(before.arguments)} (call ${displayText(before.callId)})`;
    if (before === undefined || after === undefined) continue;
    const where = `step ${before.step}, call ${displayText(before.callId)} ${displayText(before.name)}`;
    if (before.name !== after.name)
      return `${where}: the replay called ${displayText(after.name)} instead of ${displayText(before.name)}`;
    if (JSON.stringify(before.arguments) !== JSON.stringify(after.arguments))
      return `${where}: different arguments: recorded ${show(before.arguments)}, now ${show(after.arguments)}`;
    if (before.isError !== after.isError)
      return `${where}: recorded ${before.isError ? 'an error' : 'a result'}, now ${after.isError ? 'an error' : 'a result'}: ${show(after.result)} (recorded: ${show(before.result)})`;
    if (before.result !== after.result)
      return `${where}: the result differs: recorded ${show(before.result)}, now ${show(after.result)}`;
  }
  const before = recorded.outcome;
  const after = replayed.outcome;
  if (before === undefined) return `the recording has no end (its process died), the replay ended ${after.status}`;
  if (before.status !== after.status)
    return `the run ended ${after.status} after ${after.steps} steps, the recording ${before.status} after ${before.steps} steps`;
  if (before.steps !== after.steps) return `the run took ${after.steps} steps, the recording ${before.steps}`;
  if (before.toolCalls !== after.toolCalls)
    return `the run made ${after.toolCalls} tool calls, the recording ${before.toolCalls}`;
  if ((before.answer ?? '') !== (after.answer ?? ''))
    return `step ${after.steps}: the answer differs: recorded ${show(before.answer ?? '')}, now ${show(after.answer ?? '')}`;
  return undefined;
}
