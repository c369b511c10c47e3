import type { AgentResult } from '@bridle/core';

/**
 * What a protocol face reads of a finished turn: the run's outcome without its transcript (a queued run's
 * transcript is in the store, written by its worker).
 */
export type TurnResult = Pick<AgentResult, 'runId' | 'status' | 'steps' | 'toolCalls' | 'usage'> &
  Partial<Pick<AgentResult, 'answer' | 'error' | 'pendingApprovals' | 'finishReason'>>;
