import type { AgentResult } from '@bridle/core';
import type { HttpFailure } from '../http-status';

/** Statuses of runs that did not complete, as HTTP failures (a `/v1` client sees only answers or errors). */
const BY_STATUS: Readonly<Record<string, { status: number; code: string }>> = {
  model_error: { status: 502, code: 'model_error' },
  timeout: { status: 504, code: 'timeout' },
  step_limit: { status: 422, code: 'step_limit' },
  tool_limit: { status: 422, code: 'tool_limit' },
  context_limit: { status: 400, code: 'context_limit' },
  aborted: { status: 503, code: 'aborted' },
};

/**
 * The failure a `/v1` client is told about for a run that did not complete: the model failed (502),
 * the deadline passed (504), the agent hit its step or tool-call limit (422), the conversation does not
 * fit the context budget (400, OpenAI's `context_length_exceeded`), or the run was aborted (503).
 */
export function runFailure(result: Pick<AgentResult, 'status' | 'error'>): HttpFailure {
  const mapped = BY_STATUS[result.status] ?? { status: 500, code: result.status };
  return {
    ...mapped,
    message: `The agent's run ended with status ${result.status}${result.error ? `: ${result.error}` : '.'}`,
  };
}
