import type { Model, ModelRequest, ModelResponse, RunEvent } from '@bridle/protocol';

/** A model that serves a recorded run's responses: see {@link replayModel}. */
export interface ReplayModel extends Model {
  /** Every request received, in order (`messages` is a snapshot taken at call time). */
  readonly requests: ModelRequest[];
  /** The recorded responses, in the order they are served. */
  readonly responses: readonly ModelResponse[];
}

/** The response a `model_end` event recorded: content, usage, finish reason, tool calls, provider data. */
function recordedResponse(event: Extract<RunEvent, { type: 'model_end' }>): ModelResponse {
  const response: ModelResponse = { content: event.content, usage: event.usage };
  if (event.finishReason !== undefined) response.finishReason = event.finishReason;
  if (event.response?.toolCalls) response.toolCalls = event.response.toolCalls;
  if (event.response?.providerData !== undefined) response.providerData = event.response.providerData;
  return response;
}

/**
 * A model that replays a recorded run: given the run's events (a journal's `readRun(id).events`, or what an
 * `onEvent` observer collected), it answers the n-th request with the response of the run's n-th
 * `model_end` (content, tool calls, usage, finish reason, provider data), so a run recorded once against a
 * real provider becomes an offline regression test. Events of other runs (a sub-agent's, with a
 * `parentRunId`) are skipped. Asked for more than the recording holds, it throws an error naming the step.
 * Each response is a fresh copy. A request whose signal is already aborted rejects with its reason.
 */
export function replayModel(events: readonly RunEvent[], options: { id?: string } = {}): ReplayModel {
  if (!Array.isArray(events))
    throw new TypeError("replayModel(events): expected the array of a recorded run's events (readRun(id).events).");
  const start = events.find((event) => event.type === 'run_start' && event.parentRunId === undefined);
  const runId = start?.runId;
  const recorded = events.filter(
    (event): event is Extract<RunEvent, { type: 'model_end' }> =>
      event.type === 'model_end' && event.parentRunId === undefined && (runId === undefined || event.runId === runId),
  );
  const responses = recorded.map(recordedResponse);
  const requests: ModelRequest[] = [];
  return {
    id: options.id ?? `replay:${start?.type === 'run_start' ? start.model : 'model'}`,
    requests,
    responses,
    async generate(request) {
      const index = requests.length;
      requests.push({ ...request, signal: request.signal, messages: [...request.messages], tools: [...request.tools] });
      if (request.signal.aborted) throw request.signal.reason;
      const response = responses[index];
      if (response === undefined) {
        const step = (recorded[index - 1]?.step ?? index) + 1;
        throw new Error(
          `replayModel: the run asked for step ${step} (model call ${index + 1}), but the recording has only ${responses.length} model responses: the replayed run went further than the recorded one.`,
        );
      }
      return structuredClone(response);
    },
  };
}
