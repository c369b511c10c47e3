import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { type BatchRunOutcome, streamBatch } from '../src/index';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const completed = (answer: string): BatchRunOutcome => ({ status: 'completed', answer });

describe('streamBatch', () => {
  it('yields each result as soon as its item finishes, in completion order', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const items = [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }];
    const stream = streamBatch(items, {
      concurrency: 3,
      run: async (item, { index }) => {
        await gates[index]!.promise;
        return completed(item.prompt);
      },
    });
    gates[1]!.resolve();
    const first = await stream.next();
    expect(first.value).toMatchObject({ index: 1, answer: 'b' });
    gates[2]!.resolve();
    gates[0]!.resolve();
    const rest = [];
    for await (const result of stream) rest.push(result.answer);
    expect(rest.sort()).toEqual(['a', 'c']);
  });

  it('leaving the loop early aborts what is still running and what never started', async () => {
    const signals: AbortSignal[] = [];
    const items = Array.from({ length: 5 }, (_, i) => ({ prompt: String(i) }));
    const seen: string[] = [];
    const ended: string[] = [];
    for await (const result of streamBatch(items, {
      concurrency: 2,
      run: (item, { signal }) => {
        signals.push(signal);
        if (item.prompt === '0') return Promise.resolve(completed('0'));
        return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ status: 'aborted' })));
      },
      onResult: (result) => ended.push(`${result.index}:${result.status}`),
    })) {
      seen.push(result.id);
      break;
    }
    expect(seen).toEqual(['0']);
    // items 0, 1 and then 2 (taken as soon as 0 finished) started; 3 and 4 never did
    expect(signals.length).toBe(3);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    expect(ended.sort()).toEqual(['0:completed', '1:aborted', '2:aborted', '3:aborted', '4:aborted']);
  });

  it('follows the caller signal', async () => {
    const controller = new AbortController();
    const statuses: string[] = [];
    for await (const result of streamBatch([{ prompt: 'x' }, { prompt: 'y' }], {
      concurrency: 1,
      signal: controller.signal,
      run: async () => {
        controller.abort();
        return { status: 'aborted' };
      },
    })) {
      statuses.push(result.status);
    }
    expect(statuses).toEqual(['aborted', 'aborted']);
  });

  it('throws the ConfigError for bad options from the first next()', async () => {
    const stream = streamBatch([{ prompt: 'x' }], { concurrency: -1, run: async () => completed('x') });
    const error = await stream.next().catch((e: unknown) => e);
    expect(ConfigError.isInstance(error)).toBe(true);
  });
});
