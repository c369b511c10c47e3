import type { RunEvent } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { QueuedJob, RunQueue } from '@bridle/queue';
import type { ServerConfig } from './server-config';
import { ServerError } from './server-error';

/** The queue the server enqueues runs on (with `BRIDLE_REDIS_URL`), and the model id its jobs name. */
export interface QueuedRuns {
  readonly queue: RunQueue;
  /**
   * The model id of every job (`BRIDLE_MODEL`, `modelId` or the server's own model's id); undefined when none
   * is set: queued runs are then refused with a 503 saying so. Never holds credentials (user info, query
   * strings of an `openai-compatible:` endpoint): jobs in Redis name the endpoint, the workers hold the keys.
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
  // A model id such as `openai-compatible:https://user:key@host/v1?api-key=...#model` loses its credentials
  // here, once: every job names the endpoint and model only, and workers call it with their own settings.
  return { queue, modelId: modelId === undefined ? undefined : redactCredentials(modelId) };
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

/**
 * A job that did not complete, as the HTTP error its client gets: the worker's reason (a refused skill, say),
 * or a 409 for decisions that another decision beat (two people deciding one paused run at once).
 */
export function queuedRunFailure(job: QueuedJob): ServerError {
  if (job.failedCode === 'decided_elsewhere') {
    return new ServerError(
      'run_busy',
      `Run ${job.runId} was resumed by another decision first, so these were not applied and nothing was run. Reload the run to see its status.`,
    );
  }
  const reason = job.failedReason ?? `its job is ${job.state}`;
  return new ServerError('run_failed', `Run ${job.runId} failed on a worker: ${reason}`);
}

/**
 * Waits until the job settles; resolves undefined when `signal` aborts first (the client left, the
 * server is shutting down): the run goes on in its worker and ends in the store.
 */
async function settledOrAborted(runs: QueuedRuns, runId: string, signal: AbortSignal): Promise<QueuedJob | undefined> {
  try {
    return await runs.queue.settled(runId, { signal, pollMs: 25 });
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}

/** What {@link followUntilSettled} follows: the job, its run, and the first sequence of its segment. */
export interface FollowedJob {
  jobId: string;
  runId: string;
  /** A resumed segment's first sequence (the run's stream also holds the paused segment's events). */
  fromSequence?: number;
}

/**
 * Waits for a queued job to settle while its run's events go to `onEvent` (when given), and returns the
 * settled job, or undefined when `slot.signal` aborts first (the client left: the run goes on in its worker).
 * A job that did not complete aborts the following (it has no `run_end` to end with). A completed one's
 * events were all published before it completed: the following gets 5 s to reach its `run_end`, then is cut.
 * A failure of the following itself (Redis) goes to `onFollowError`; the job's result still answers.
 */
export async function followUntilSettled(
  runs: QueuedRuns,
  job: FollowedJob,
  slot: { signal: AbortSignal; abort(reason: unknown): void },
  onEvent: ((event: RunEvent) => void) | undefined,
  onFollowError: (error: unknown) => void,
): Promise<QueuedJob | undefined> {
  const following = onEvent && follow(runs, job, slot.signal, onEvent, onFollowError);
  const settled = await settledOrAborted(runs, job.jobId, slot.signal);
  if (!settled) return undefined;
  if (settled.state !== 'completed' || !settled.result) {
    slot.abort(new Error('the run failed on its worker'));
    await following;
    return settled;
  }
  const timer = setTimeout(() => slot.abort(new Error('the run ended without its run_end event')), 5000);
  await following;
  clearTimeout(timer);
  return settled;
}

async function follow(
  runs: QueuedRuns,
  job: FollowedJob,
  signal: AbortSignal,
  onEvent: (event: RunEvent) => void,
  onFollowError: (error: unknown) => void,
): Promise<void> {
  const options = {
    signal,
    jobId: job.jobId,
    ...(job.fromSequence === undefined ? {} : { fromSequence: job.fromSequence }),
  };
  try {
    for await (const event of runs.queue.follow(job.runId, options)) onEvent(event);
  } catch (error) {
    if (!signal.aborted) onFollowError(error);
  }
}
