import { randomUUID } from 'node:crypto';
import type { BatchProgress, BatchResult } from '@bridle/batch';
import { ServerError } from './server-error';

/** What `GET /api/batch/:id` answers. `results` holds the finished items so far, in input order. */
export interface BatchJobView {
  id: string;
  status: 'running' | 'finished' | 'cancelled';
  createdAt: string;
  finishedAt?: string;
  progress: BatchProgress;
  results: BatchResult[];
}

/** One batch job: its state, updated by the batch runner's callbacks. */
export interface BatchJob {
  readonly id: string;
  /** The tenant that started it: only its keys see or cancel it. */
  readonly tenant: string;
  readonly controller: AbortController;
  readonly createdAt: number;
  finishedAt?: number;
  cancelled: boolean;
  progress: BatchProgress;
  /** By input index; holes are items not finished yet. */
  readonly results: (BatchResult | undefined)[];
  /** Settles when the batch has ended. */
  done?: Promise<void>;
}

/**
 * The batch jobs of the server, bounded: at most `maxJobs` kept. A new job evicts the oldest finished
 * one when full; when all of them are still running it is refused (503). Finished jobs are forgotten
 * after `ttlMs`.
 */
export class BatchJobs {
  readonly #jobs = new Map<string, BatchJob>();
  readonly #maxJobs: number;
  readonly #ttlMs: number;

  constructor(options: { maxJobs: number; ttlMs: number }) {
    this.#maxJobs = options.maxJobs;
    this.#ttlMs = options.ttlMs;
  }

  /** Registers a new job for `total` items; throws `ServerError('too_many_jobs')` when none can be made room for. */
  create(total: number, tenant: string): BatchJob {
    this.#sweep();
    if (this.#jobs.size >= this.#maxJobs) {
      const oldestFinished = [...this.#jobs.values()].find((job) => job.finishedAt !== undefined);
      if (!oldestFinished) {
        throw new ServerError(
          'too_many_jobs',
          `The server already runs its maximum of ${this.#maxJobs} batch jobs: retry when one has finished.`,
          { retryAfterSeconds: 5 },
        );
      }
      this.#jobs.delete(oldestFinished.id);
    }
    const job: BatchJob = {
      id: randomUUID(),
      tenant,
      controller: new AbortController(),
      createdAt: Date.now(),
      cancelled: false,
      progress: { total, done: 0, succeeded: 0, failed: 0, aborted: 0, running: 0, pending: total, retries: 0 },
      results: new Array(total),
    };
    this.#jobs.set(job.id, job);
    return job;
  }

  get(id: string): BatchJob | undefined {
    this.#sweep();
    return this.#jobs.get(id);
  }

  /** Aborts a job's unfinished items (they end as `aborted`); true when the job exists. */
  cancel(id: string): boolean {
    const job = this.get(id);
    if (!job) return false;
    if (job.finishedAt === undefined) {
      job.cancelled = true;
      job.controller.abort(new Error('the batch job was cancelled'));
    }
    return true;
  }

  /** Aborts every running job (shutdown). */
  abortAll(reason: unknown): void {
    for (const job of this.#jobs.values()) if (job.finishedAt === undefined) job.controller.abort(reason);
  }

  /** Settles when every job that is running now has ended. */
  async idle(): Promise<void> {
    await Promise.all([...this.#jobs.values()].map((job) => job.done));
  }

  #sweep(): void {
    const cutoff = Date.now() - this.#ttlMs;
    for (const job of this.#jobs.values()) {
      if (job.finishedAt !== undefined && job.finishedAt <= cutoff) this.#jobs.delete(job.id);
    }
  }
}

/** The public view of a job. */
export function viewJob(job: BatchJob): BatchJobView {
  return {
    id: job.id,
    status: job.finishedAt === undefined ? 'running' : job.cancelled ? 'cancelled' : 'finished',
    createdAt: new Date(job.createdAt).toISOString(),
    ...(job.finishedAt === undefined ? {} : { finishedAt: new Date(job.finishedAt).toISOString() }),
    progress: job.progress,
    results: job.results.filter((result): result is BatchResult => result !== undefined),
  };
}
