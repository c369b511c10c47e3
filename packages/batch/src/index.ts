export { agentRun } from './agent-run';
export { DEFAULT_MAX_LINE_BYTES, type InputLine, type ReadLinesOptions, readLines } from './read-lines';
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
