import { ConfigError, ProviderError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import {
  type BatchProgress,
  type BatchResult,
  type BatchRunContext,
  type BatchRunOutcome,
  runBatch,
} from '../src/index';

interface Job {
  id?: string | number;
  prompt: string;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });
const completed = (answer: string): BatchRunOutcome => ({
  status: 'completed',
  answer,
  steps: 1,
  toolCalls: 0,
  usage: usage(1, 2),
});
const fast = { maxRetries: 2, baseDelayMs: 0, maxDelayMs: 0 };
const jobs = (count: number): Job[] => Array.from({ length: count }, (_, i) => ({ prompt: `p${i}` }));

describe('runBatch', () => {
  it('returns one result per item in input order, whatever order they finish in', async () => {
    const gates = [deferred<void>(), deferred<void>(), deferred<void>()];
    const finished: string[] = [];
    const batch = runBatch(jobs(3), {
      concurrency: 3,
      run: async (item, { index }) => {
        await gates[index]!.promise;
        return completed(`answer ${item.prompt}`);
      },
      onResult: (result) => finished.push(result.id),
    });
    gates[2]!.resolve();
    gates[0]!.resolve();
    gates[1]!.resolve();
    const results = await batch;
    expect(finished).toEqual(['2', '0', '1']);
    expect(results.map((r) => [r.index, r.id, r.status, r.answer, r.attempts])).toEqual([
      [0, '0', 'completed', 'answer p0', 1],
      [1, '1', 'completed', 'answer p1', 1],
      [2, '2', 'completed', 'answer p2', 1],
    ]);
    expect(results[0]).toMatchObject({ steps: 1, toolCalls: 0, usage: usage(1, 2) });
    expect(results[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('never runs more than `concurrency` items at once and starts the next as soon as one finishes', async () => {
    const gates = jobs(5).map(() => deferred<void>());
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const batch = runBatch(jobs(5), {
      concurrency: 2,
      run: async (_item, { index }) => {
        started.push(index);
        running += 1;
        peak = Math.max(peak, running);
        await gates[index]!.promise;
        running -= 1;
        return completed('ok');
      },
    });
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    for (const gate of gates) gate.resolve();
    await batch;
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
  });

  it('uses the item id (string or number) and falls back to the index', async () => {
    const results = await runBatch([{ id: 'a', prompt: 'x' }, { id: 7, prompt: 'y' }, { prompt: 'z' }], {
      run: async () => completed('ok'),
    });
    expect(results.map((r) => r.id)).toEqual(['a', '7', '2']);
  });

  it('resolves to an empty list for no items, without calling run', async () => {
    let calls = 0;
    const progress: BatchProgress[] = [];
    const results = await runBatch([], {
      run: async () => {
        calls += 1;
        return completed('x');
      },
      onProgress: (p) => progress.push(p),
    });
    expect(results).toEqual([]);
    expect(calls).toBe(0);
    expect(progress).toEqual([]);
  });
});

describe('runBatch retries', () => {
  it('retries a model_error and a timeout, counting attempts and summing usage', async () => {
    const script: Record<string, BatchRunOutcome[]> = {
      p0: [{ status: 'model_error', error: 'boom', usage: usage(5, 0) }, completed('fine')],
      p1: [{ status: 'timeout', error: 'slow' }, { status: 'timeout', error: 'slow' }, completed('late')],
    };
    const attempts: number[][] = [[], []];
    const results = await runBatch(jobs(2), {
      retry: fast,
      run: async (item, { attempt, index }) => {
        attempts[index]!.push(attempt);
        return script[item.prompt]!.shift()!;
      },
    });
    expect(attempts).toEqual([
      [1, 2],
      [1, 2, 3],
    ]);
    expect(results.map((r) => [r.status, r.answer, r.attempts])).toEqual([
      ['completed', 'fine', 2],
      ['completed', 'late', 3],
    ]);
    expect(results[0]!.usage).toEqual(usage(6, 2));
    expect(results[0]!.error).toBeUndefined();
  });

  it('retries a thrown error and reports the last message when retries run out', async () => {
    let calls = 0;
    const [result] = await runBatch(jobs(1), {
      retry: { ...fast, maxRetries: 3 },
      run: async () => {
        calls += 1;
        throw new Error(`network down #${calls}`);
      },
    });
    expect(calls).toBe(4);
    expect(result).toMatchObject({ status: 'error', error: 'network down #4', attempts: 4, steps: 0, toolCalls: 0 });
  });

  it('does not retry when maxRetries is 0', async () => {
    const [result] = await runBatch(jobs(1), {
      retry: { maxRetries: 0 },
      run: async () => ({ status: 'model_error', error: 'bad gateway' }),
    });
    expect(result).toMatchObject({ status: 'model_error', error: 'bad gateway', attempts: 1 });
  });

  it('never retries statuses another attempt cannot fix, nor a ConfigError', async () => {
    const outcomes: BatchRunOutcome[] = [
      { status: 'step_limit' },
      { status: 'tool_limit' },
      { status: 'context_limit', error: 'too long' },
      { status: 'aborted' },
    ];
    const results = await runBatch([...jobs(5)], {
      retry: fast,
      run: async (_item, { index }) => {
        if (index === 4) throw new ConfigError('bad item');
        return outcomes[index]!;
      },
    });
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['step_limit', 1],
      ['tool_limit', 1],
      ['context_limit', 1],
      ['aborted', 1],
      ['error', 1],
    ]);
    expect(results[4]!.error).toBe('bad item');
  });

  it('does not retry once a tool that is not read-only has started in the failed attempt', async () => {
    let calls = 0;
    const [result] = await runBatch(jobs(1), {
      retry: fast,
      readOnlyTools: ['read_file'],
      run: async (_item, context) => {
        calls += 1;
        context.onEvent({ type: 'tool_start', name: 'read_file' });
        context.onEvent({ type: 'tool_start', name: 'write_file' });
        return { status: 'model_error', error: 'provider died after the write' };
      },
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({ status: 'model_error', attempts: 1 });
  });

  it('does not retry a throw after a side-effecting tool either', async () => {
    let calls = 0;
    const [result] = await runBatch(jobs(1), {
      retry: fast,
      run: async (_item, context) => {
        calls += 1;
        context.onEvent({ type: 'tool_start', name: 'anything' });
        throw new Error('crash');
      },
    });
    expect(calls).toBe(1);
    expect(result).toMatchObject({ status: 'error', error: 'crash', attempts: 1 });
  });

  it('retries after read-only tools only, judging each attempt on its own', async () => {
    const seen: string[][] = [];
    const [result] = await runBatch(jobs(1), {
      retry: fast,
      readOnlyTools: ['read_file', 'search_text'],
      run: async (_item, context) => {
        seen.push([]);
        context.onEvent({ type: 'model_start' });
        context.onEvent({ type: 'tool_start', name: 'read_file' });
        context.onEvent({ type: 'tool_start', name: 'search_text' });
        if (context.attempt < 3) return { status: 'model_error', error: `fail ${context.attempt}` };
        return completed('done');
      },
      onEvent: (event, item) => seen[item.attempt - 1]!.push(`${item.index}:${event.type}:${event.name ?? ''}`),
    });
    expect(result).toMatchObject({ status: 'completed', attempts: 3 });
    expect(seen[2]).toEqual(['0:model_start:', '0:tool_start:read_file', '0:tool_start:search_text']);
  });

  it('retries a thrown retryable ProviderError', async () => {
    let calls = 0;
    const [result] = await runBatch(jobs(1), {
      retry: { maxRetries: 1, baseDelayMs: 0, maxDelayMs: 0 },
      random: () => 0,
      run: async () => {
        calls += 1;
        if (calls === 1)
          throw new ProviderError({ code: 'rate_limited', message: 'slow down', provider: 'x', retryAfterMs: 5 });
        return completed('ok');
      },
    });
    expect(result).toMatchObject({ status: 'completed', attempts: 2 });
  });
});

describe('runBatch progress and observers', () => {
  it('reports a snapshot at every start, retry and finish', async () => {
    const progress: BatchProgress[] = [];
    await runBatch(jobs(2), {
      concurrency: 1,
      retry: fast,
      run: async (_item, { index, attempt }) =>
        index === 0 && attempt === 1
          ? { status: 'model_error' }
          : index === 1
            ? { status: 'step_limit' }
            : completed('ok'),
      onProgress: (p) => progress.push(p),
    });
    const row = (p: BatchProgress) => [p.done, p.succeeded, p.failed, p.running, p.pending, p.retries];
    expect(progress.every((p) => p.total === 2)).toBe(true);
    expect(progress.map(row)).toEqual([
      [0, 0, 0, 1, 1, 0], // item 0 starts
      [0, 0, 0, 1, 1, 1], // item 0 retries
      [1, 1, 0, 0, 1, 1], // item 0 completes
      [1, 1, 0, 1, 0, 1], // item 1 starts
      [2, 1, 1, 0, 0, 1], // item 1 ends with step_limit
    ]);
  });

  it('keeps going when an observer throws, and tells onObserverError', async () => {
    const reported: unknown[] = [];
    const results = await runBatch(jobs(2), {
      run: async (_item, context) => {
        context.onEvent({ type: 'model_start' });
        return completed('ok');
      },
      onResult: () => {
        throw new Error('result observer');
      },
      onProgress: () => {
        throw new Error('progress observer');
      },
      onEvent: () => {
        throw new Error('event observer');
      },
      onObserverError: (error) => {
        reported.push((error as Error).message);
        throw new Error('the reporter throws too');
      },
    });
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(new Set(reported)).toEqual(new Set(['result observer', 'progress observer', 'event observer']));
  });
});

describe('runBatch abort', () => {
  it('ends unstarted items as aborted at once and aborts the running ones through their signal', async () => {
    const controller = new AbortController();
    const started = deferred<void>();
    const delivered: BatchResult[] = [];
    const progress: BatchProgress[] = [];
    const batch = runBatch(jobs(4), {
      concurrency: 1,
      onProgress: (snapshot) => progress.push(snapshot),
      signal: controller.signal,
      run: (_item, context: BatchRunContext) =>
        new Promise((resolve) => {
          started.resolve();
          context.signal.addEventListener('abort', () => resolve({ status: 'aborted', error: 'cancelled' }));
        }),
      onResult: (result) => delivered.push(result),
    });
    await started.promise;
    controller.abort();
    // The three unstarted items are handed over synchronously by the abort, before the running one ends.
    expect(delivered.map((r) => [r.index, r.status, r.attempts])).toEqual([
      [1, 'aborted', 0],
      [2, 'aborted', 0],
      [3, 'aborted', 0],
    ]);
    const results = await batch;
    // Aborted items are not failures: the progress (the CLI's bar) must not say "4 failed" after Ctrl-C.
    expect(progress.at(-1)).toMatchObject({ done: 4, failed: 0, aborted: 4, succeeded: 0 });
    expect(results.map((r) => [r.status, r.attempts])).toEqual([
      ['aborted', 1],
      ['aborted', 0],
      ['aborted', 0],
      ['aborted', 0],
    ]);
    expect(results[1]!.error).toBe('the batch was aborted before this item started');
  });

  it('an already aborted signal runs nothing', async () => {
    let calls = 0;
    const results = await runBatch(jobs(2), {
      signal: AbortSignal.abort(),
      run: async () => {
        calls += 1;
        return completed('x');
      },
    });
    expect(calls).toBe(0);
    expect(results.map((r) => r.status)).toEqual(['aborted', 'aborted']);
  });

  it('a run that throws because of the abort ends as aborted and is not retried', async () => {
    const controller = new AbortController();
    let calls = 0;
    const batch = runBatch(jobs(1), {
      signal: controller.signal,
      retry: fast,
      run: (_item, { signal }) =>
        new Promise((_resolve, reject) => {
          calls += 1;
          signal.addEventListener('abort', () => reject(new Error('socket closed')));
        }),
    });
    await Promise.resolve();
    controller.abort();
    const [result] = await batch;
    expect(calls).toBe(1);
    expect(result).toMatchObject({ status: 'aborted', error: 'socket closed', attempts: 1 });
  });

  it('an abort during the backoff wait ends the item as aborted without another attempt', async () => {
    const controller = new AbortController();
    let calls = 0;
    const batch = runBatch(jobs(1), {
      signal: controller.signal,
      retry: { maxRetries: 5, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      run: async () => {
        calls += 1;
        return { status: 'model_error', error: 'overloaded' };
      },
      onProgress: (p) => {
        if (p.retries === 1) controller.abort();
      },
    });
    const [result] = await batch;
    expect(calls).toBe(1);
    expect(result).toMatchObject({
      status: 'aborted',
      error: 'aborted while waiting to retry: overloaded',
      attempts: 1,
    });
  });
});

describe('runBatch options', () => {
  it.each([
    [
      { run: async () => completed('x'), concurrency: 0 },
      'Invalid runBatch option concurrency: expected an integer >= 1 (a safe integer), got number 0.',
    ],
    [
      { run: async () => completed('x'), concurrency: 1.5 },
      /Invalid runBatch option concurrency: expected an integer >= 1/,
    ],
    [
      { run: async () => completed('x'), retry: { maxRetries: -1 } },
      /Invalid runBatch option retry\.maxRetries: expected an integer >= 0/,
    ],
    [{ run: 'nope' }, /run must be a function/],
    [{}, /pass `agent: \{ model, ... \}`/],
    [{ agent: { model: {} } }, /agent.model is an object/],
    [{ run: async () => completed('x'), readOnlyTools: 'read_file' }, /readOnlyTools must be an array/],
  ])('rejects bad options with a ConfigError (%#)', async (options, message) => {
    const error = await runBatch(jobs(1), options as never).catch((e: unknown) => e);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('rejects items that are not an array', async () => {
    await expect(runBatch('x' as never, { run: async () => completed('x') })).rejects.toThrow(
      'runBatch: items must be an array, got "x".',
    );
  });
});
