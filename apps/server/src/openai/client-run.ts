import type { AgentResult } from '@bridle/core';
import type { RunEvent } from '@bridle/events';
import type { ClientAgent } from './agent-models';
import type { AgentInput } from './openai-input';

/** Options of `runForClient`. */
export interface RunForClientOptions {
  /** The agent the client's model id names: its profile runs here; a queued run asks a worker for its skill. */
  agent: ClientAgent;
  input: AgentInput;
  /** Stream the model's text (`text_delta` events). */
  stream: boolean;
  onEvent?: (event: RunEvent) => void;
}

/** What a `/v1` route reads of a run (an in-process `AgentResult` or a queued job's result). */
export type ClientRunResult = Pick<AgentResult, 'runId' | 'status' | 'answer' | 'error' | 'usage'> &
  Partial<Pick<AgentResult, 'finishReason'>>;
