import type { RunEvent, RunSignal, RunSignalChannel, Store } from '@bridle/protocol';
import { Queue, QueueEvents } from 'bullmq';
import { bulkEnqueue } from './bulk-enqueue';
import { positiveOption } from './check-options';
import { failureCode } from './decided-elsewhere';
import { followRun } from './follow-run';
import { DEFAULT_MAX_PAYLOAD_BYTES, jobIdOf, type RunJobSpec, toJobData } from './job-spec';
import { checkPrefix, DEFAULT_QUEUE_PREFIX, QUEUE_NAME, queueKeys } from './names';
import { checkRedisReachable, checkRedisUrl, openRedis } from './redis-connection';
import { redisSignals } from './redis-signals';
import type { QueuedRunResult } from './run-result';

/** Options of {@link openRunQueue}. */
export interface RunQueueOptions {
  /** `redis://host:port` (or `rediss://`). */
  redis: string;
  /** Key prefix of the deployment (default `bridle`); workers must use the same. */
  prefix?: string;
  /** Largest job (the JSON of its data) accepted by `enqueue`, in bytes; default 1 MiB. */
  maxPayloadBytes?: number;
  /**
   * Tries of a job; default 3. A job is tried again when its run ended with a retryable model error (a
   * provider failure: workers make one call per step per try, so each model call of a run is made at most
   * `attempts` times, as `bridle batch --retries N` gives `attempts: 1 + N`) or its worker threw (a journal
   * write failed). Each try resumes the run from the journal. Refusals are never retried.
   */
  attempts?: number;
  /** The first wait before a retry, in ms, doubling each time; default 1000. */
  backoffMs?: number;
  /**
   * The store the workers journal to: `follow()` reads a run's end there when its event stream is gone (expired
   * 24 h after its last event, or lost with Redis's data). Not closed by `close()`.
   */
  store?: Store;
  /** Bound on the first connection to Redis, in ms; default 5000. */
  connectTimeoutMs?: number;
}

/** Where a job is. `missing`: Redis does not know it (never enqueued, removed, or lost with Redis's data). */
export type QueuedJobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'missing';

/** A job as the queue knows it. */
export interface QueuedJob {
  /** The job id, which is the run id. */
  jobId: string;
  runId: string;
  state: QueuedJobState;
  /** Set when `completed`. */
  result?: QueuedRunResult;
  /** Set when `failed`: why (the refusal, the last error, or a worker that kept dying). */
  failedReason?: string;
  /**
   * Set when `failed` for a known reason: `decided_elsewhere` is an approvals job whose paused run another
   * decision resumed first (two people decided at once): it ran nothing, and the run goes on with the other.
   */
  failedCode?: 'decided_elsewhere';
  /** Tries that ended (completed, or failed and retried or not); a job handed back by a draining worker does not count. */
  attemptsMade: number;
  /** Epoch ms: enqueued, first taken by a worker, finished. */
  enqueuedAt?: number;
  startedAt?: number;
  finishedAt?: number;
}

/**
 * The producer side of the queue: enqueue runs, watch them, follow their events, and steer or cancel them
 * (as a `RunSignalChannel`: pass it in `channels` of `steerRun` / `cancelRun` of @bridle/core).
 */
export interface RunQueue extends RunSignalChannel {
  /**
   * Enqueues a run. Its `runId` (default a new UUID) is also the job id, so enqueueing the same `runId`
   * again while the job is known adds nothing, and enqueueing it after its job was lost makes a worker
   * continue (or, if it ended, just report) the journaled run. Rejects with `ConfigError` for an invalid
   * spec or a payload over `maxPayloadBytes`, before anything reaches Redis.
   */
  enqueue(spec: RunJobSpec): Promise<{ jobId: string; runId: string }>;
  /**
   * Enqueues many runs in few round trips (BullMQ's `addBulk`, up to 1000 jobs or 8 MiB per round trip), with
   * the rules of `enqueue`: run ids the queue still knows add nothing. Every spec is checked first: one that
   * `enqueue` would refuse rejects the call (a `ConfigError` naming its index) before anything reaches Redis.
   * Resolves with each spec's ids, in order.
   */
  enqueueMany(specs: readonly RunJobSpec[]): Promise<{ jobId: string; runId: string }[]>;
  /** The job's state (and result once settled). */
  job(jobId: string): Promise<QueuedJob>;
  /** Resolves once the job is `completed` or `failed` (or `missing`), polling every `pollMs` (default 100). */
  settled(jobId: string, options?: { signal?: AbortSignal; pollMs?: number }): Promise<QueuedJob>;
  /**
   * The run's events as a worker publishes them (from its first event), until its `run_end`, or `signal`.
   * Call it once the run is enqueued. When the stream has no more and the run's job is settled (completed,
   * failed, or no longer known: a stream expires 24 h after its last event), the rest comes from `store`;
   * without one, or when the journal has no `run_end` either, it throws a `BridleError` (code
   * `run_stream_gone`) naming the job's state (and a failed job's reason) rather than waiting for ever.
   */
  follow(
    runId: string,
    options?: {
      signal?: AbortSignal;
      /** The job whose state ends the wait (default the run id; an approvals job's own id, see `enqueue`). */
      jobId?: string;
      /** Skips earlier events: a resumed segment's first sequence (the stream also holds the paused one's). */
      fromSequence?: number;
    },
  ): AsyncIterable<RunEvent>;
  /**
   * Calls `listener` with the id of every job that completes or fails from now on (BullMQ's queue events;
   * best effort: a listener may miss events while Redis is away, so poll `job()` too). Returns a function
   * that stops listening.
   */
  onSettled(listener: (jobId: string) => void): Promise<() => void>;
  /**
   * Sends a steering or cancel signal to run `runId` on whichever worker runs it (Redis pub/sub on the
   * deployment's channel; workers listen while they run a job). Lost when no worker runs the run.
   */
  sendRunSignal(runId: string, signal: RunSignal): Promise<void>;
  /** Closes the connections. */
  close(): Promise<void>;
  /** The underlying BullMQ queue (counts, pause, clean, obliterate). */
  readonly queue: Queue;
}

const STATES = new Set(['waiting', 'delayed', 'active', 'completed', 'failed']);

/**
 * Opens the producer side of the `bridle-runs` queue. Rejects with `ConfigError` for bad options or a Redis
 * that cannot be reached within `connectTimeoutMs`; later outages are retried (commands wait for Redis).
 */
export async function openRunQueue(options: RunQueueOptions): Promise<RunQueue> {
  const url = checkRedisUrl(options.redis);
  const prefix = checkPrefix(options.prefix ?? DEFAULT_QUEUE_PREFIX);
  const maxPayloadBytes = positiveOption('maxPayloadBytes', options.maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES);
  const attempts = positiveOption('attempts', options.attempts, 3);
  const backoffMs = positiveOption('backoffMs', options.backoffMs, 1000);
  await checkRedisReachable(url, positiveOption('connectTimeoutMs', options.connectTimeoutMs, 5000));
  const keys = queueKeys(prefix);
  const connection = openRedis(url);
  connection.on('error', () => {});
  const queue = new Queue(QUEUE_NAME, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts,
      backoff: { type: 'exponential', delay: backoffMs },
      removeOnComplete: { age: 24 * 3600, count: 100_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  });
  queue.on('error', () => {});
  const followers = new Set<{ disconnect(): void }>();
  const signals = redisSignals(url, keys.signals, connection);
  const listeners = new Set<(jobId: string) => void>();
  let queueEvents: Promise<QueueEvents> | undefined;
  // BullMQ leaves a connection it was given open: close() disconnects it.
  const eventsConnection = openRedis(url, { lazyConnect: true });
  eventsConnection.on('error', () => {});
  const startEvents = async () => {
    // Its own connection: QueueEvents blocks on it reading the events stream.
    const events = new QueueEvents(QUEUE_NAME, { connection: eventsConnection, prefix });
    events.on('error', () => {});
    const notify = ({ jobId }: { jobId: string }) => {
      for (const listener of listeners) listener(jobId);
    };
    events.on('completed', notify);
    events.on('failed', notify);
    await events.waitUntilReady();
    return events;
  };

  async function job(jobId: string): Promise<QueuedJob> {
    // State first: once it says finished, the job's fields read next are final too.
    const state = await queue.getJobState(jobId);
    const found = state === 'unknown' ? undefined : await queue.getJob(jobId);
    if (!found) return { jobId, runId: jobId, state: 'missing', attemptsMade: 0 };
    const known: QueuedJob = {
      jobId,
      runId: (found.data as { runId?: string }).runId ?? jobId,
      state: STATES.has(state) ? (state as QueuedJobState) : state === 'prioritized' ? 'waiting' : 'missing',
      attemptsMade: found.attemptsMade,
      enqueuedAt: found.timestamp,
    };
    if (found.processedOn) known.startedAt = found.processedOn;
    if (found.finishedOn) known.finishedAt = found.finishedOn;
    if (known.state === 'completed') known.result = found.returnvalue as QueuedRunResult;
    if (known.state === 'failed') {
      known.failedReason = found.failedReason;
      const code = failureCode(found.failedReason);
      if (code !== undefined) known.failedCode = code;
    }
    return known;
  }

  return {
    queue,
    async enqueue(spec) {
      const data = toJobData(spec, maxPayloadBytes);
      const jobId = jobIdOf(data);
      await queue.add('run', data, { jobId });
      return { jobId, runId: data.runId };
    },
    enqueueMany: (specs) => bulkEnqueue(queue, specs, maxPayloadBytes),
    sendRunSignal: (runId, signal) => signals.sendRunSignal(runId, signal),
    listenRunSignals: (runId, listener) => signals.listenRunSignals(runId, listener),
    job,
    async settled(jobId, { signal, pollMs = 100 } = {}) {
      for (;;) {
        signal?.throwIfAborted();
        const known = await job(jobId);
        if (known.state === 'completed' || known.state === 'failed' || known.state === 'missing') return known;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    follow(runId, { signal, jobId = runId, fromSequence } = {}) {
      const reader = connection.duplicate();
      reader.on('error', () => {});
      followers.add(reader);
      const events = followRun(reader, {
        key: keys.events(runId),
        runId,
        signal,
        store: options.store,
        blockMs: 1000,
        ...(fromSequence === undefined ? {} : { fromSequence }),
        jobState: () => queue.getJobState(jobId),
        failedReason: async () => (await queue.getJob(jobId))?.failedReason,
      });
      return {
        async *[Symbol.asyncIterator]() {
          try {
            yield* events;
          } finally {
            followers.delete(reader);
            reader.disconnect();
          }
        },
      };
    },
    async onSettled(listener) {
      queueEvents ??= startEvents();
      await queueEvents;
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      signals.close();
      for (const reader of followers) reader.disconnect();
      if (queueEvents) {
        const events = await queueEvents;
        await events.close();
      }
      eventsConnection.disconnect();
      await queue.close();
      connection.disconnect();
    },
  };
}
