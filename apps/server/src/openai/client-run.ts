import type { AgentResult } from '@bridle/core';
import type { RunEvent } from '@bridle/events';
import type { RunProfile } from '../run-profiles';
import type { AgentInput } from './openai-input';

/** Options of `runForClient`. */
export interface RunForClientOptions {
  profile: RunProfile;
  /** The skill the client's model id names (`bridle:<skill>`): what a queued run asks its worker for. */
  skill: string;
  input: AgentInput;
  /** Stream the model's text (`text_delta` events). */
  stream: boolean;
  onEvent?: (event: RunEvent) => void;
}

/** What a `/v1` route reads of a run (an in-process `AgentResult` or a queued job's result). */
export type ClientRunResult = Pick<AgentResult, 'runId' | 'status' | 'answer' | 'error' | 'usage'>;
