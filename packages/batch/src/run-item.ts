import { BridleError, ProviderError, type Usage } from '@bridle/protocol';
import { backoffDelay, errorMessage, sleep } from '@bridle/protocol/internal';
import type { RetryPolicy } from './retry-policy';
import type { BatchResult, BatchRunEvent, BatchRunFunction, BatchRunOutcome, BatchStatus } from './types';

/** What `runItem` needs from the batch: shared for every item. */
export interface ItemRunSetup<I> {
  run: BatchRunFunction<I>;
  policy: RetryPolicy;
  random: () => number;
  signal: AbortSignal;
  isReadOnly(toolName: string): boolean;
  onEvent(event: BatchRunEvent, item: { index: number; id: string; attempt: number }): void;
  /** Called when a retry is scheduled (before its backoff wait). */
  onRetry(): void;
}

/** Statuses that say the run failed in a way another attempt may fix. */
const RETRYABLE_STATUSES: ReadonlySet<BatchStatus> = new Set(['model_error', 'timeout']);

/** A thrown error that another attempt cannot fix (bad options or a bad item). */
function isPermanent(error: unknown): boolean {
  return BridleError.isInstance(error) && error.code === 'invalid_config';
}

/**
 * Runs one item, retrying it while (1) the attempt failed with `model_error` / `timeout` or threw a
 * non-configuration error, (2) no tool outside `isReadOnly` started during that attempt (its side
 * effects may have happened: running again could do them twice), (3) retries are left and (4) the
 * batch is not aborted. Never throws.
 */
export async function runItem<I>(item: I, index: number, id: string, setup: ItemRunSetup<I>): Promise<BatchResult> {
  const { signal, policy } = setup;
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  const started = performance.now();
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const attempt = attempts;
    let sideEffects = false;
    const onEvent = (event: BatchRunEvent) => {
      if (event.type === 'tool_start' && !(typeof event.name === 'string' && setup.isReadOnly(event.name))) {
        sideEffects = true;
      }
      setup.onEvent(event, { index, id, attempt });
    };

    let outcome: BatchRunOutcome;
    let thrown: unknown;
    let threw = false;
    try {
      outcome = await setup.run(item, { signal, attempt, index, id, onEvent });
    } catch (error) {
      threw = true;
      thrown = error;
      outcome = { status: signal.aborted ? 'aborted' : 'error', error: errorMessage(error) };
    }
    if (outcome.usage) {
      usage.inputTokens += outcome.usage.inputTokens;
      usage.outputTokens += outcome.usage.outputTokens;
    }
    const result = (status: BatchStatus, error = outcome.error): BatchResult => ({
      index,
      id,
      status,
      ...(outcome.answer === undefined ? {} : { answer: outcome.answer }),
      ...(error === undefined ? {} : { error }),
      ...(outcome.output === undefined ? {} : { output: outcome.output }),
      attempts,
      steps: outcome.steps ?? 0,
      toolCalls: outcome.toolCalls ?? 0,
      usage,
      ...(outcome.runId === undefined ? {} : { runId: outcome.runId }),
      durationMs: Math.round(performance.now() - started),
    });

    const failed = threw ? !isPermanent(thrown) : RETRYABLE_STATUSES.has(outcome.status);
    if (!failed || sideEffects || attempts > policy.maxRetries || signal.aborted) {
      return result(outcome.status);
    }
    setup.onRetry();
    const least = ProviderError.isInstance(thrown) ? (thrown.retryAfterMs ?? 0) : 0;
    const waited = await sleep(backoffDelay(policy, attempts, { retryAfterMs: least, random: setup.random }), signal);
    if (!waited) return result('aborted', `aborted while waiting to retry: ${outcome.error ?? outcome.status}`);
  }
}
