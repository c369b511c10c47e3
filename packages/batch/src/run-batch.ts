import type { Usage } from '@bridle/protocol';
import { agentRun } from './agent-run';
import { retryPolicy } from './retry-policy';
import { runItem } from './run-item';
import type { BatchItem, BatchProgress, BatchResult, BatchRunEvent, BatchRunFunction, RunBatchOptions } from './types';
import { validateBatchOptions } from './validate-options';

/** The id of an item: its own `id` (string or finite number) or else its index. */
function idOf(item: unknown, index: number): string {
  const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return String(index);
}

const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

/**
 * Runs one independent agent run per item, at most `concurrency` at once, and resolves with every
 * result in input order. Failed runs (`model_error`, `timeout`, or a throw) are retried with backoff,
 * but only while no tool that is not read-only has started in that attempt. Each result goes to
 * `onResult` as soon as its item finishes; `onProgress` hears every change.
 *
 * Aborting `signal` ends unstarted items as `aborted` (attempts 0) at once and aborts the running ones.
 * Rejects with `ConfigError` for bad options before anything runs; otherwise never rejects: a failing
 * item becomes a result with its status and error.
 */
export async function runBatch<I = BatchItem>(
  items: readonly I[],
  options: RunBatchOptions<I>,
): Promise<BatchResult[]> {
  validateBatchOptions(items, options as RunBatchOptions<unknown>);
  const signal = options.signal ?? new AbortController().signal;
  const run = options.run ?? (agentRun(options.agent!) as unknown as BatchRunFunction<I>);
  const readOnly = new Set(
    options.readOnlyTools ??
      (options.run
        ? []
        : (options.agent?.tools ?? []).filter((tool) => tool.readOnly === true).map((tool) => tool.name)),
  );
  const total = items.length;
  const results: BatchResult[] = new Array(total);
  const progress: BatchProgress = {
    total,
    done: 0,
    succeeded: 0,
    failed: 0,
    aborted: 0,
    running: 0,
    pending: total,
    retries: 0,
  };

  const guard = <A extends unknown[]>(callback: ((...args: A) => void) | undefined, ...args: A) => {
    if (!callback) return;
    try {
      callback(...args);
    } catch (error) {
      try {
        options.onObserverError?.(error);
      } catch {
        // An error reporter that throws has nowhere left to report to.
      }
    }
  };
  const report = () => guard(options.onProgress, { ...progress });
  const finish = (result: BatchResult, wasRunning: boolean) => {
    results[result.index] = result;
    if (wasRunning) progress.running -= 1;
    else progress.pending -= 1;
    progress.done += 1;
    if (result.status === 'completed') progress.succeeded += 1;
    // Ctrl-C is not a failure: an item it cut off (or never started) is counted apart.
    else if (result.status === 'aborted') progress.aborted += 1;
    else progress.failed += 1;
    guard(options.onResult, result);
    report();
  };

  let next = 0;
  const abortUnstarted = () => {
    while (next < total) {
      const index = next++;
      finish(
        {
          index,
          id: idOf(items[index], index),
          status: 'aborted',
          error: 'the batch was aborted before this item started',
          attempts: 0,
          steps: 0,
          toolCalls: 0,
          usage: { ...ZERO_USAGE },
          durationMs: 0,
        },
        false,
      );
    }
  };
  if (signal.aborted) abortUnstarted();
  signal.addEventListener('abort', abortUnstarted, { once: true });

  const setup = {
    run,
    policy: retryPolicy(options.retry),
    random: options.random ?? Math.random,
    signal,
    isReadOnly: (name: string) => readOnly.has(name),
    onEvent: (event: BatchRunEvent, item: { index: number; id: string; attempt: number }) =>
      guard(options.onEvent, event, item),
    onRetry: () => {
      progress.retries += 1;
      report();
    },
  };
  const worker = async () => {
    while (next < total) {
      const index = next++;
      progress.pending -= 1;
      progress.running += 1;
      report();
      const item = items[index] as I;
      const result = await runItem(item, index, idOf(item, index), setup);
      finish(result, true);
    }
  };
  try {
    const workers = Array.from({ length: Math.min(options.concurrency ?? 4, total) }, worker);
    await Promise.all(workers);
  } finally {
    signal.removeEventListener('abort', abortUnstarted);
  }
  return results;
}
