import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { JournalError, type QuotaLedger, quotaGate, type RunAgentOptions, resumeRun, runAgent } from '@bridle/core';
import { ConfigError, type Message, type RunEvent, type Store } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { bothGates } from './both-gates';
import { positiveOption } from './check-options';
import { fencedStore } from './fenced-store';
import { type RunJobData, readJobData } from './job-spec';
import { finalModelError, ModelErrorRetry } from './model-error-retry';
import { checkRateLimit, ModelGate, type RateLimit } from './model-rate-limiter';
import { checkPrefix, DEFAULT_QUEUE_PREFIX, QUEUE_NAME, queueKeys } from './names';
import { checkRedisReachable, checkRedisUrl, openRedis, redactRedisUrl } from './redis-connection';
import { RedisQuotaLedger } from './redis-quota-ledger';
import { redisSignals } from './redis-signals';
import { resumeWithApprovals } from './resume-with-approvals';
import { eventPublisher } from './run-event-stream';
import { type QueuedRunResult, toQueuedResult } from './run-result';

/**
 * What a worker runs a job with: the `runAgent` options it chose (model, tools, system, limits, hooks). Its
 * `retry.maxRetries` is replaced by 0: a failed model call is retried as a new attempt of the job.
 */
export type WorkerAgent = Omit<RunAgentOptions, 'prompt' | 'messages' | 'signal' | 'store' | 'runId' | 'sessionId'>;

/** A job as the worker's `agent` callback sees it. */
export interface RunJob extends RunJobData {
  jobId: string;
  /** 1 on the first try, more after a failure was retried or a dead worker's job was picked up. */
  attempt: number;
}

/** The worker's budget with the job's cost limit: the smaller of the two applies. */
function tightenedBudget(budget: RunAgentOptions['budget'], maxCostUsd: number): RunAgentOptions['budget'] {
  return { ...budget, maxCostUsd: Math.min(budget?.maxCostUsd ?? Number.POSITIVE_INFINITY, maxCostUsd) };
}

/** The run's budget: the worker's, tightened by the job's cost limit, gated by the job's tenant quotas. */
function jobBudget(agent: WorkerAgent, data: RunJobData, ledger: QuotaLedger): RunAgentOptions['budget'] {
  const budget = data.maxCostUsd === undefined ? agent.budget : tightenedBudget(agent.budget, data.maxCostUsd);
  if (data.quotas === undefined) return budget;
  const tenant = quotaGate(ledger, data.tenant ?? 'default', data.quotas);
  return { ...budget, gate: budget?.gate === undefined ? tenant : bothGates(budget.gate, tenant) };
}

/** One line of what a worker has to say (readiness, outages, failed jobs). */
export interface WorkerLog {
  level: 'info' | 'warn' | 'error';
  message: string;
}

/** Options of {@link startRunWorker}. */
export interface RunWorkerOptions {
  /** `redis://host:port` (or `rediss://`). */
  redis: string;
  /** The store every worker shares (Postgres for many machines): runs are journaled there and resumed from it. */
  store: Store;
  /**
   * Chooses what a job runs with, from its model id and skill. Throw to refuse a job (an unknown skill, a
   * model id pointing at an endpoint the worker's settings did not choose): it fails at once, without
   * retries, with your message as its reason.
   */
  agent: (job: RunJob) => WorkerAgent | Promise<WorkerAgent>;
  /** Key prefix of the deployment (default `bridle`); producers must use the same. */
  prefix?: string;
  /** Jobs run at once by this worker; default 4. */
  concurrency?: number;
  /** Model calls per model id, across every worker of the queue. Default: no limit (provider pauses still apply). */
  rateLimit?: RateLimit;
  /** On `close()`: how long running jobs may go on before they are handed back, in ms; default 30000. */
  drainTimeoutMs?: number;
  /** How long a job stays owned by a worker that stopped renewing it (died), in ms; default 10000. */
  lockDurationMs?: number;
  /** How often workers look for jobs of dead workers, in ms; default 5000. A dead worker's job restarts within about lock + interval. */
  stalledIntervalMs?: number;
  /** A job whose worker died more than this many times is failed (a poison job that kills workers); default 2. */
  maxStalledCount?: number;
  /** Bound on the first connection to Redis, in ms; default 5000. */
  connectTimeoutMs?: number;
  /** Readiness, outage (once per outage) and failure lines; default none. */
  onLog?: (log: WorkerLog) => void;
}

/** A running worker. */
export interface RunWorker {
  /** Drains: takes no new job, lets running ones finish within `drainTimeoutMs`, hands the rest back. Idempotent. */
  close(): Promise<void>;
  /** Jobs running now. */
  readonly running: number;
}

interface ActiveJob {
  handBack(reason: string): void;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);

function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (typeof code === 'string' && CONNECTION_CODES.has(code)) ||
    /Connection is closed|connect ETIMEDOUT/i.test(errorMessage(error))
  );
}

/**
 * Starts a worker of the `bridle-runs` queue. Each job runs with `runAgent` against the shared store, or
 * with `resumeRun` when its run is already journaled (a job picked up after its worker died: completed model
 * calls are not made again, an interrupted non-idempotent tool call gets the `Interrupted` result). Its
 * events go to the run's Redis stream as they happen (`RunQueue.follow`).
 *
 * Rejects with `ConfigError` for bad options or a Redis that cannot be reached within `connectTimeoutMs`.
 * Once running, a lost Redis is retried with backoff (logged once per outage).
 */
export async function startRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const url = checkRedisUrl(options.redis);
  const prefix = checkPrefix(options.prefix ?? DEFAULT_QUEUE_PREFIX);
  if (typeof options.agent !== 'function')
    throw new ConfigError('startRunWorker needs agent: (job) => runAgent options.');
  if (typeof options.store?.appendEvents !== 'function')
    throw new ConfigError('startRunWorker needs store: a Store (openStore(url)).');
  const concurrency = positiveOption('concurrency', options.concurrency, 4);
  const drainTimeoutMs = positiveOption('drainTimeoutMs', options.drainTimeoutMs, 30_000, 0);
  const lockDuration = positiveOption('lockDurationMs', options.lockDurationMs, 10_000);
  const stalledInterval = positiveOption('stalledIntervalMs', options.stalledIntervalMs, 5000);
  const maxStalledCount = positiveOption('maxStalledCount', options.maxStalledCount, 2, 0);
  const rateLimit = options.rateLimit === undefined ? undefined : checkRateLimit(options.rateLimit);
  const log = options.onLog ?? (() => {});
  await checkRedisReachable(url, positiveOption('connectTimeoutMs', options.connectTimeoutMs, 5000));

  const { store } = options;
  // The name this worker holds run leases by (what `listRuns` shows as a running run's owner).
  const owner = `${os.hostname()}:${process.pid}:worker-${randomBytes(3).toString('hex')}`;
  const keys = queueKeys(prefix);
  const redis = openRedis(url);
  const gate = new ModelGate(redis, prefix, rateLimit);
  // Tenants' quotas count where the servers of the deployment count them (same Redis, same prefix).
  const ledger = RedisQuotaLedger.over(redis, prefix);
  // Steering and cancel for the runs of this worker's jobs (`RunQueue.sendRunSignal`), besides the store's.
  const signals = redisSignals(url, keys.signals, redis);
  const active = new Map<string, ActiveJob>();
  let outage = false;
  const noteError = (error: unknown) => {
    if (outage) return;
    outage = true;
    log({
      level: 'warn',
      message: `Redis at ${redactRedisUrl(url)} failed (${errorMessage(error)}); retrying with backoff`,
    });
  };
  redis.on('error', noteError);
  redis.on('ready', () => {
    if (!outage) return;
    outage = false;
    log({ level: 'info', message: `Redis at ${redactRedisUrl(url)} is back` });
  });

  const processJob = async (job: Job, token?: string): Promise<QueuedRunResult> => {
    let data: RunJobData;
    try {
      data = readJobData(job.data);
    } catch (error) {
      throw new UnrecoverableError(`job ${job.id}: ${errorMessage(error)}`);
    }
    let agent: WorkerAgent;
    try {
      agent = await options.agent({ ...data, jobId: String(job.id), attempt: job.attemptsStarted || 1 });
    } catch (error) {
      throw new UnrecoverableError(errorMessage(error));
    }
    const controller = new AbortController();
    // The run's events go to Redis once its first append is in the store (or the job is over): a follower
    // that reads the run when its first event arrives (an A2A cancel, a status check) finds it.
    let stored!: () => void;
    const inStore = new Promise<void>((resolve) => {
      stored = resolve;
    });
    const fence = fencedStore(
      store,
      {
        ...(data.tenant === undefined ? {} : { tenant: data.tenant }),
        ...(data.by === undefined ? {} : { by: data.by }),
      },
      stored,
    );
    let handedBack: string | undefined;
    active.set(String(job.id), {
      handBack(reason) {
        handedBack ??= reason;
        fence.fence(`run handed back to the queue: ${reason}`);
        controller.abort(new Error(`handed back to the queue: ${reason}`));
      },
    });
    const publisher = eventPublisher(redis, keys.events(data.runId), noteError, inStore);
    const flushed = () => {
      stored();
      return publisher.flushed();
    };
    const own = agent.onEvent;
    const observers = own === undefined ? [] : Array.isArray(own) ? own : [own];
    const attempts = job.opts.attempts ?? 1;
    const retry = new ModelErrorRetry(data.runId, job.attemptsMade + 1 < attempts);
    const run = {
      ...agent,
      model: gate.wrap(agent.model),
      // The job's attempts are the item's whole retry budget: one call per step per attempt.
      retry: { ...agent.retry, maxRetries: 0 },
      ...(data.system === undefined ? {} : { system: data.system }),
      ...(data.maxSteps === undefined ? {} : { maxSteps: data.maxSteps }),
      ...(data.maxToolCalls === undefined ? {} : { maxToolCalls: data.maxToolCalls }),
      ...(data.timeoutMs === undefined ? {} : { timeoutMs: data.timeoutMs }),
      ...(data.maxCostUsd === undefined && data.quotas === undefined ? {} : { budget: jobBudget(agent, data, ledger) }),
      ...(data.stream === undefined ? {} : { stream: data.stream }),
      store: retry.journal(fence.store),
      channels: [...(agent.channels ?? []), signals],
      runId: data.runId,
      signal: controller.signal,
      onEvent: [
        retry.observe,
        ...observers,
        (event: RunEvent) => {
          if (!retry.holds(event)) publisher.publish(event);
        },
      ],
    } as RunAgentOptions;
    // A job's first take starts its run: runAgent itself refuses a runId the store has (a job enqueued
    // again after Redis lost it), and only then is the journal read, so a new run costs no extra read.
    // Later takes (a retry, a dead or draining worker's job) resume it when it is journaled.
    const first = (job.attemptsStarted ?? 0) <= 1 && job.attemptsMade === 0;
    run.ownership = { owner, leaseMs: lockDuration };
    if (!first && store.acquireLease !== undefined) {
      // The queue handed this job on (the last worker's lock expired, or an attempt failed): this worker
      // takes the run's lease even while the last holder's is unexpired, so whatever that worker still does
      // (a stalled process that wakes up) is refused by the store.
      const taken = await store.acquireLease(data.runId, { owner, leaseMs: lockDuration, force: true });
      if (taken.acquired) run.ownership = { owner, leaseMs: lockDuration, lease: taken.lease };
    }
    try {
      const start = async () =>
        runAgent({
          ...run,
          ...(await input(store, data)),
          // Journaled in run_start: store.listRuns({ sessionId }) finds the session's queued runs.
          ...(data.sessionId === undefined ? {} : { sessionId: data.sessionId }),
        } as RunAgentOptions);
      const result =
        data.approvals !== undefined
          ? await resumeWithApprovals(store, run, data.approvals, first)
          : first
            ? await start().catch(async (error: unknown) => {
                if (ConfigError.isInstance(error) && (await store.readRun(data.runId))) return resumeRun(run);
                throw error;
              })
            : (await store.readRun(data.runId))
              ? await resumeRun(run)
              : await start();
      // BullMQ tries the job again after its backoff; the next attempt resumes the run from the journal.
      if (retry.reason !== undefined) throw new Error(retry.reason);
      if (result.status === 'model_error' && result.error !== undefined)
        result.error = finalModelError(result.error, job.attemptsMade + 1);
      if (data.sessionId !== undefined && result.status !== 'aborted') {
        const now = new Date().toISOString();
        const session = await store.getSession(data.sessionId);
        await store.saveSession({
          ...session,
          ...(session === undefined && data.tenant !== undefined ? { tenant: data.tenant } : {}),
          id: data.sessionId,
          messages: result.messages,
          createdAt: session?.createdAt ?? now,
          updatedAt: now,
        });
      }
      return toQueuedResult(result);
    } catch (error) {
      if (handedBack !== undefined) {
        await flushed();
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (JournalError.isInstance(error) && error.fenced) {
        // This worker lost the job (stalled past its lock: the queue handed it on) and the run's new owner
        // took its lease; the store refused this worker's write, and it stopped before any further call.
        log({ level: 'warn', message: `job ${job.id}: ${error.message}` });
      }
      // A run the worker cannot start (bad options, a transcript that is not valid) fails the same way again.
      if (ConfigError.isInstance(error)) throw new UnrecoverableError(`run ${data.runId}: ${errorMessage(error)}`);
      throw error;
    } finally {
      active.delete(String(job.id));
      await flushed();
    }
  };

  // BullMQ leaves a connection it was given open: close() disconnects it.
  const connection = openRedis(url);
  connection.on('error', noteError);
  const worker = new Worker<unknown, QueuedRunResult>(QUEUE_NAME, processJob, {
    connection,
    prefix,
    concurrency,
    lockDuration,
    stalledInterval,
    maxStalledCount,
    autorun: false,
  });
  worker.on('error', (error) => {
    // BullMQ reports both lost connections and job-level trouble (a lock lost while Redis was away) here.
    if (isConnectionError(error)) noteError(error);
    else log({ level: 'warn', message: `queue: ${errorMessage(error)}` });
  });
  worker.on('failed', (job, error) => {
    if (!job) return;
    if (job.finishedOn !== undefined)
      log({ level: 'warn', message: `job ${job.id} failed after ${job.attemptsMade} attempt(s): ${error.message}` });
    else
      log({
        level: 'info',
        message: `job ${job.id}: attempt ${job.attemptsMade} of ${job.opts.attempts ?? 1} failed (${error.message}); it will be retried`,
      });
  });
  void worker.run().catch(noteError);
  await worker.waitUntilReady();
  log({
    level: 'info',
    message: `worker ready: queue ${QUEUE_NAME}, prefix ${prefix}, Redis ${redactRedisUrl(url)}, concurrency ${concurrency}${rateLimit ? `, ${rateLimit.max} model calls per ${rateLimit.durationMs} ms per model` : ''}`,
  });

  let closing: Promise<void> | undefined;
  return {
    get running() {
      return active.size;
    },
    close() {
      closing ??= (async () => {
        const timer = setTimeout(() => {
          for (const job of active.values())
            job.handBack(`the worker is stopping (drain timeout ${drainTimeoutMs} ms)`);
        }, drainTimeoutMs);
        try {
          await worker.close();
        } finally {
          clearTimeout(timer);
          signals.close();
          redis.disconnect();
          connection.disconnect();
        }
      })();
      return closing;
    },
  };
}

async function input(store: Store, data: RunJobData): Promise<{ prompt: string } | { messages: Message[] }> {
  const own = data.messages ?? [{ role: 'user' as const, content: data.prompt as string }];
  if (data.sessionId === undefined) return data.prompt === undefined ? { messages: own } : { prompt: data.prompt };
  const session = await store.getSession(data.sessionId);
  return { messages: [...(session?.messages ?? []), ...own] };
}
