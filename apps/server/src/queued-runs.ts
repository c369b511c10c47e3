import type { QueuedJob, RunQueue } from '@bridle/queue';
import type { ServerConfig } from './server-config';
import { ServerError } from './server-error';

/** The queue the server enqueues runs on (with `BRIDLE_REDIS_URL`), and the model id its jobs name. */
export interface QueuedRuns {
  readonly queue: RunQueue;
  /**
   * The model id of every job (`BRIDLE_MODEL`, `modelId` or the server's own model's id); undefined when none
   * is set: queued runs are then refused with a 503 saying so. The workers hold the keys.
   */
  readonly modelId: string | undefined;
}

/**
 * Opens the producer side of the `bridle-runs` queue on `config.redisUrl`. Rejects with a `ConfigError`
 * naming the URL (password hidden) when Redis cannot be reached within 5 s.
 */
export async function openQueuedRuns(config: ServerConfig, modelId: string | undefined): Promise<QueuedRuns> {
  // Loaded only in queue mode: BullMQ and ioredis are not needed by a server that runs in process.
  const { openRunQueue } = await import('@bridle/queue');
  const queue = await openRunQueue({ redis: config.redisUrl as string, prefix: config.queuePrefix });
  return { queue, modelId };
}

/** The model id of queued jobs, or a 503 that says how to set one. */
export function queuedModelId(runs: QueuedRuns): string {
  if (runs.modelId !== undefined) return runs.modelId;
  throw new ServerError(
    'not_ready',
    'No model id for queued runs: set BRIDLE_MODEL (or --model) on the server to the model id the workers run.',
    { retryAfterSeconds: 30 },
  );
}

/** A job that did not complete, as the HTTP error its client gets (the worker's reason, e.g. a refused skill). */
export function queuedRunFailure(job: QueuedJob): ServerError {
  const reason = job.failedReason ?? `its job is ${job.state}`;
  return new ServerError('run_failed', `Run ${job.runId} failed on a worker: ${reason}`);
}

/**
 * Waits until the job settles; resolves undefined when `signal` aborts first (the client left, the
 * server is shutting down): the run goes on in its worker and ends in the store.
 */
export async function settledOrAborted(
  runs: QueuedRuns,
  runId: string,
  signal: AbortSignal,
): Promise<QueuedJob | undefined> {
  try {
    return await runs.queue.settled(runId, { signal, pollMs: 25 });
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}
