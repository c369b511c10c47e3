export { agentRun } from './agent-run';
export { runBatch } from './run-batch';
export { streamBatch } from './stream-batch';
export type {
  BatchAgentOptions,
  BatchItem,
  BatchProgress,
  BatchResult,
  BatchRetryOptions,
  BatchRunContext,
  BatchRunEvent,
  BatchRunFunction,
  BatchRunOutcome,
  BatchStatus,
  RunBatchOptions,
} from './types';
