import type { RunEvent, Usage } from '@bridle/protocol';
import type { EvalRun, EvalToolCall } from './types';

type RunEnd = Extract<RunEvent, { type: 'run_end' }>;

/**
 * A run as scorers see it, from its events (a journal, or what an observer heard): the last `run_end` of the
 * run itself (sub-agents' events are left out) gives status, answer, steps, tool calls and usage; the
 * `tool_start` / `tool_end` pairs give the calls. A run without a `run_end` has status `error`.
 */
export function evalRunFromEvents(
  runId: string,
  variant: string,
  events: readonly RunEvent[],
  output?: unknown,
): EvalRun {
  const args = new Map<string, unknown>();
  const calls = new Map<string, EvalToolCall>();
  let end: RunEnd | undefined;
  let durationMs = 0;
  for (const event of events) {
    if (event.runId !== runId || event.parentRunId !== undefined) continue;
    if (event.type === 'tool_start') args.set(event.callId, event.arguments);
    else if (event.type === 'tool_end') {
      // A call journaled twice (recovery ran it again) counts once, at its last result.
      calls.delete(event.callId);
      calls.set(event.callId, {
        name: event.name,
        arguments: args.get(event.callId),
        isError: event.isError,
        result: event.result,
      });
    } else if (event.type === 'run_end') {
      end = event;
      durationMs += event.durationMs;
    }
  }
  const usage: Usage = end?.usage ?? { inputTokens: 0, outputTokens: 0 };
  return {
    runId,
    variant,
    status: end?.status ?? 'error',
    ...(end?.answer === undefined ? {} : { answer: end.answer }),
    ...(output === undefined ? {} : { output }),
    ...(end === undefined
      ? { error: 'the run has no end in its journal (its process stopped)' }
      : end.error === undefined
        ? {}
        : { error: end.error }),
    steps: end?.steps ?? 0,
    toolCalls: end?.toolCalls ?? calls.size,
    calls: [...calls.values()],
    usage,
    durationMs,
    events,
  };
}
