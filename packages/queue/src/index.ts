export { DEFAULT_MAX_PAYLOAD_BYTES, type JobDecision, type JobQuotas, type RunJobSpec } from './job-spec';
export { checkRateLimit, parseRateLimit, type RateLimit } from './model-rate-limiter';
export { DEFAULT_QUEUE_PREFIX, QUEUE_NAME } from './names';
export { redactRedisUrl } from './redis-connection';
export { RedisQuotaLedger } from './redis-quota-ledger';
export { openRunQueue, type QueuedJob, type QueuedJobState, type RunQueue, type RunQueueOptions } from './run-queue';
export type { QueuedRunResult } from './run-result';
export {
  type RunJob,
  type RunWorker,
  type RunWorkerOptions,
  startRunWorker,
  type WorkerAgent,
  type WorkerLog,
} from './run-worker';
export { type SubmitAllOptions, submitAll } from './submit-all';
