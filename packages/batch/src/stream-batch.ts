import { runBatch } from './run-batch';
import type { BatchItem, BatchResult, RunBatchOptions } from './types';

/**
 * Like {@link runBatch}, but yields each result as soon as its item finishes (completion order).
 * Leaving the loop early (`break`, `return`, a throw) aborts the items still running or unstarted and
 * waits for them to settle. Throws `ConfigError` from the first `next()` for bad options.
 */
export async function* streamBatch<I = BatchItem>(
  items: readonly I[],
  options: RunBatchOptions<I>,
): AsyncGenerator<BatchResult, void, undefined> {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const queue: BatchResult[] = [];
  let read = 0;
  let wake: (() => void) | undefined;
  let settled = false;
  let failure: { error: unknown } | undefined;

  const running = runBatch(items, {
    ...options,
    signal,
    onResult: (result) => {
      queue.push(result);
      wake?.();
      options.onResult?.(result);
    },
  }).then(
    () => {
      settled = true;
      wake?.();
    },
    (error: unknown) => {
      failure = { error };
      settled = true;
      wake?.();
    },
  );
  try {
    for (;;) {
      if (read < queue.length) {
        const result = queue[read] as BatchResult;
        queue[read++] = undefined as never; // let yielded results be collected
        yield result;
        continue;
      }
      if (settled) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if (failure) throw failure.error;
  } finally {
    controller.abort();
    await running;
  }
}
