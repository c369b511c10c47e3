import type { AgentResult } from '@bridle/core';
import type { Usage } from '@bridle/protocol';

/** What a finished job returns (kept in Redis with the job): the run's outcome without its transcript (in the store). */
export interface QueuedRunResult {
  runId: string;
  status: AgentResult['status'];
  answer?: string;
  error?: string;
  output?: unknown;
  steps: number;
  toolCalls: number;
  usage: Usage;
  pendingApprovals?: AgentResult['pendingApprovals'];
  /** Why the model stopped on the run's last response, when the provider said (`length`: cut by the output limit). */
  finishReason?: AgentResult['finishReason'];
}

/** The part of an `AgentResult` a job returns. */
export function toQueuedResult(result: AgentResult): QueuedRunResult {
  return {
    runId: result.runId,
    status: result.status,
    ...(result.answer === undefined ? {} : { answer: result.answer }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.output === undefined ? {} : { output: result.output }),
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    ...(result.pendingApprovals === undefined ? {} : { pendingApprovals: result.pendingApprovals }),
    ...(result.finishReason === undefined ? {} : { finishReason: result.finishReason }),
  };
}
