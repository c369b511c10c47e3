import type { RunEvent, Store } from '@bridle/protocol';

/**
 * Turns a queued run's retryable model error into a new attempt of its job. Queued runs make one model call
 * per step per attempt (no retries in process): when the run is about to end `model_error` after a retryable
 * provider failure and the job has attempts left, the run's `run_end` is neither journaled nor published,
 * so the journal stops after the failed call as if the worker had died there, and the next attempt (on any
 * worker, after the queue's backoff) resumes it with `resumeRun`: completed model calls are not made again.
 */
export class ModelErrorRetry {
  #retryable = false;
  #reason: string | undefined;

  /**
   * @param runId The job's run (a sub-agent's forwarded events are not its end).
   * @param attemptsLeft Whether the job may be tried again after this attempt.
   */
  constructor(
    readonly runId: string,
    readonly attemptsLeft: boolean,
  ) {}

  /** Why this attempt ends in a retry (the model error), once its `run_end` was held back; else undefined. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** True for an event that must not reach the journal or followers (the held-back `run_end`). Observe every event first. */
  holds(event: RunEvent): boolean {
    return this.#reason !== undefined && event.type === 'run_end' && event.runId === this.runId;
  }

  /** Pass as the first event observer of the run. */
  readonly observe = (event: RunEvent): void => {
    if (event.runId !== this.runId) return;
    if (event.type === 'model_error') this.#retryable = event.retryable === true;
    else if (event.type === 'model_end') this.#retryable = false;
    else if (event.type === 'run_end' && event.status === 'model_error' && this.#retryable && this.attemptsLeft)
      this.#reason = event.error ?? 'model error';
  };

  /** `store`, with a held-back `run_end` left out of the run's appends. */
  journal(store: Store): Store {
    return {
      ...store,
      appendEvents: (runId, events, options) => {
        const kept = events.filter((event) => !this.holds(event));
        return kept.length === 0 ? Promise.resolve() : store.appendEvents(runId, kept, options);
      },
    };
  }
}

const GAVE_UP = / \(gave up after 1 attempts\)$/;

/**
 * The error of a retryable model failure that ended a job's last attempt, counting the job's attempts
 * (core counts the one call of the attempt). Other errors are returned unchanged.
 */
export function finalModelError(error: string, attempts: number): string {
  if (!GAVE_UP.test(error)) return error;
  return `${error.replace(GAVE_UP, '')} (gave up after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} of the job)`;
}
