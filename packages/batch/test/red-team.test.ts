import { ProviderError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { type BatchResult, type BatchRunContext, type BatchRunOutcome, runBatch } from '../src/index';

const completed: BatchRunOutcome = { status: 'completed', answer: 'ok' };
const failed: BatchRunOutcome = { status: 'model_error', error: 'upstream failed' };
const nextMacrotask = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

describe('red team: runBatch', () => {
  it('never runs more than `concurrency` attempts at once, retries included (seed-free: 60 items, 3 slots)', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await runBatch(
      Array.from({ length: 60 }, (_, index) => ({ id: `i${index}` })),
      {
        concurrency: 3,
        retry: { maxRetries: 1, baseDelayMs: 0 },
        run: async (_item, { attempt, index }) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          await nextMacrotask();
          inFlight -= 1;
          return index % 4 === 0 && attempt === 1 ? failed : completed;
        },
      },
    );
    expect(most).toBe(3);
    expect(results.every((result) => result.status === 'completed')).toBe(true);
    expect(results.filter((result) => result.attempts === 2)).toHaveLength(15);
  });

  it('never retries once a tool that is not read-only started, whether the attempt failed or threw', async () => {
    const calls: string[] = [];
    const run = async (item: { id: string; tool?: string }, context: BatchRunContext): Promise<BatchRunOutcome> => {
      calls.push(item.id);
      if (item.tool !== undefined) context.onEvent({ type: 'tool_start', name: item.tool });
      else context.onEvent({ type: 'tool_start' }); // a tool_start without a name counts as a side effect
      if (item.id.startsWith('throw')) throw new Error('crashed after the tool');
      return failed;
    };
    const results = await runBatch(
      [
        { id: 'write', tool: 'write_file' },
        { id: 'throw-write', tool: 'write_file' },
        { id: 'unnamed' },
        { id: 'read', tool: 'read_file' },
        { id: 'proto', tool: '__proto__' },
      ],
      { run, readOnlyTools: ['read_file'], retry: { maxRetries: 2, baseDelayMs: 0 } },
    );
    expect(results.map((result) => [result.id, result.status, result.attempts])).toEqual([
      ['write', 'model_error', 1],
      ['throw-write', 'error', 1],
      ['unnamed', 'model_error', 1],
      ['read', 'model_error', 3],
      ['proto', 'model_error', 1],
    ]);
    expect(calls.filter((id) => id === 'read')).toHaveLength(3);
  });

  it('with the default runner, a write tool in the failing attempt stops retries (real runAgent)', async () => {
    let call = 0;
    const model = scriptedModel((request) => {
      call += 1;
      if (call === 1) return { content: '', toolCalls: [{ id: 'c1', name: 'side_effect', arguments: {} }] };
      throw new ProviderError({ code: 'server', message: `down ${request.messages.length}`, provider: 'fake' });
    });
    let effects = 0;
    const results = await runBatch([{ id: 'a', prompt: 'go' }], {
      agent: {
        model,
        retry: { maxRetries: 0 },
        tools: [
          {
            name: 'side_effect',
            description: 'does something once',
            parameters: { type: 'object', properties: {} },
            execute: async () => {
              effects += 1;
              return 'done';
            },
          },
        ],
      },
      retry: { maxRetries: 3, baseDelayMs: 0 },
    });
    expect(results[0]).toMatchObject({ status: 'model_error', attempts: 1 });
    expect(effects).toBe(1);
  });

  it('an abort during the backoff ends the item as aborted without another attempt', async () => {
    const controller = new AbortController();
    let calls = 0;
    const results = await runBatch([{ id: 'a' }], {
      signal: controller.signal,
      retry: { maxRetries: 5, baseDelayMs: 60_000 },
      run: async () => {
        calls += 1;
        return failed;
      },
      onProgress: (progress) => {
        if (progress.retries === 1) controller.abort(new Error('stop'));
      },
    });
    expect(calls).toBe(1);
    expect(results[0]).toMatchObject({
      status: 'aborted',
      attempts: 1,
      error: 'aborted while waiting to retry: upstream failed',
    });
  });

  it('a Retry-After longer than the timer range still waits (no overflow to an immediate retry)', async () => {
    const controller = new AbortController();
    let calls = 0;
    const done = runBatch([{ id: 'a' }], {
      signal: controller.signal,
      retry: { maxRetries: 1, baseDelayMs: 0 },
      run: async () => {
        calls += 1;
        throw new ProviderError({
          code: 'rate_limited',
          message: 'slow down',
          provider: 'fake',
          retryAfterMs: 2 ** 31,
        });
      },
    });
    // An overflowing timer fires after 1 ms: by this later macrotask the second attempt would have run.
    await nextMacrotask(20);
    expect(calls).toBe(1);
    controller.abort();
    expect((await done)[0]).toMatchObject({ status: 'aborted', attempts: 1 });
  });

  it('returns results in input order while onResult hears them in finishing order', async () => {
    const heard: string[] = [];
    const gates = new Map<string, () => void>();
    const results = runBatch(
      ['a', 'b', 'c', 'd'].map((id) => ({ id })),
      {
        concurrency: 4,
        run: (item) =>
          new Promise<BatchRunOutcome>((resolve) => {
            gates.set(item.id, () => resolve({ status: 'completed', answer: item.id }));
          }),
        onResult: (result) => heard.push(result.id),
      },
    );
    const order = ['c', 'a', 'd', 'b'];
    for (const [position, id] of order.entries()) {
      while (!gates.has(id)) await Promise.resolve();
      gates.get(id)?.();
      while (heard.length <= position) await nextMacrotask();
    }
    expect((await results).map((result) => result.answer)).toEqual(['a', 'b', 'c', 'd']);
    expect(heard).toEqual(order);
  });

  it('an onResult (or onProgress) that throws loses no result and reaches onObserverError', async () => {
    const observed: unknown[] = [];
    const results = await runBatch(
      Array.from({ length: 5 }, (_, index) => ({ id: `i${index}` })),
      {
        concurrency: 2,
        run: async () => completed,
        onResult: (result: BatchResult) => {
          if (result.index % 2 === 0) throw new Error(`observer broke on ${result.id}`);
        },
        onProgress: () => {
          throw 'progress broke';
        },
        onObserverError: (error) => {
          observed.push(error);
          throw new Error('and the reporter too');
        },
      },
    );
    expect(results.map((result) => result.status)).toEqual(Array(5).fill('completed'));
    expect(observed.filter((error) => error instanceof Error).map((error) => (error as Error).message)).toEqual([
      'observer broke on i0',
      'observer broke on i2',
      'observer broke on i4',
    ]);
    expect(observed).toContain('progress broke');
  });

  it('10,000 items run with only `concurrency` workers and come back complete and in order', async () => {
    const items = Array.from({ length: 10_000 }, (_, index) => ({ id: `i${index}` }));
    let inFlight = 0;
    let most = 0;
    const results = await runBatch(items, {
      concurrency: 8,
      run: async (_item, { index }) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await Promise.resolve();
        inFlight -= 1;
        return { status: 'completed', answer: String(index) };
      },
    });
    expect(most).toBeLessThanOrEqual(8);
    expect(results).toHaveLength(10_000);
    expect(results.every((result, index) => result.answer === String(index) && result.id === `i${index}`)).toBe(true);
  });
});
