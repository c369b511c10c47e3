import { BridleError, type RunEvent } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type RunQueue, startRunWorker } from '../src/index';
import { testAgent, twoStepModel } from './agents';
import { dropPrefix, newPrefix, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('follow after the stream is gone (Redis)', {});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A worker, a producer that knows the store and one that does not, and the run `done` finished. */
async function setup() {
  const prefix = newPrefix();
  const store = await openStore('memory:');
  const withStore = await openRunQueue({ redis: REDIS_URL, prefix, store });
  const bare = await openRunQueue({ redis: REDIS_URL, prefix });
  const worker = await startRunWorker({ redis: REDIS_URL, prefix, store, agent: testAgent(twoStepModel()) });
  const redis = new Redis(REDIS_URL);
  cleanups.push(async () => {
    redis.disconnect();
    await worker.close();
    await Promise.all([withStore.close(), bare.close()]);
    await store.close();
    await dropPrefix(prefix);
  });
  /** Expires the run's event stream now, as 24 h without events would. */
  const expire = async (runId: string) => {
    await redis.pexpire(`${prefix}:bridle-runs:run-events:${runId}`, 1);
    await expect.poll(() => redis.exists(`${prefix}:bridle-runs:run-events:${runId}`), { timeout: 10_000 }).toBe(0);
  };
  return { store, withStore, bare, expire };
}

async function eventsOf(queue: RunQueue, runId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of queue.follow(runId)) events.push(event);
  return events;
}

async function followError(queue: RunQueue, runId: string): Promise<BridleError> {
  const error = await eventsOf(queue, runId).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(BridleError.isInstance(error) && error.code).toBe('run_stream_gone');
  return error as BridleError;
}

suite('@bridle/queue follow() of a run whose event stream is gone', () => {
  it('ends with the journal from the store when the finished run stream expired', async () => {
    const { store, withStore, expire } = await setup();
    await withStore.enqueue({ prompt: 'old', model: 'test:two-step', runId: 'old' });
    expect((await withStore.settled('old')).state).toBe('completed');
    await expire('old');
    const events = await eventsOf(withStore, 'old');
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', answer: 'answer: old' });
    expect(events).toEqual((await store.readRun('old'))?.events);
  });

  it('without a store: a clear error naming the cause, not a wait for ever', async () => {
    const { withStore, bare, expire } = await setup();
    await withStore.enqueue({ prompt: 'gone', model: 'test:two-step', runId: 'gone' });
    await withStore.settled('gone');
    await expire('gone');
    expect((await followError(bare, 'gone')).message).toBe(
      'The event stream of run gone ended without its run_end: its job completed, and a stream is kept 24 h after its last event. Read the run from the store (store.readRun), or give openRunQueue the store so follow() reads it there.',
    );
  });

  it('a job that failed before its run started, and a run the queue never had, end with the reason', async () => {
    const { withStore } = await setup();
    await withStore.enqueue({ prompt: 'x', model: 'test:other', runId: 'refused' });
    expect((await withStore.settled('refused')).state).toBe('failed');
    expect((await followError(withStore, 'refused')).message).toBe(
      'Run refused has no events in the stream or in the store: its job failed (model test:other is not offered by this worker (it runs test:two-step)).',
    );
    expect((await followError(withStore, 'never')).message).toBe(
      'Run never has no events in the stream or in the store: the queue has no job for it (never enqueued, or removed after it finished).',
    );
  });
});

suite('@bridle/queue: a run reaches its followers once the store has it', () => {
  it('the first event a follower gets is of a run the store can read (its appends slow, as on a busy disk)', async () => {
    const prefix = newPrefix();
    const memory = await openStore('memory:');
    // The same store, each append taking 300 ms: far longer than the worker's publishing window.
    const store = new Proxy(memory, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'appendEvents') return value.bind(target);
        return async (...args: Parameters<typeof memory.appendEvents>) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          return target.appendEvents(...args);
        };
      },
    });
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    const worker = await startRunWorker({ redis: REDIS_URL, prefix, store, agent: testAgent(twoStepModel()) });
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      await memory.close();
      await dropPrefix(prefix);
    });
    await queue.enqueue({ prompt: 'slow disk', model: 'test:two-step', runId: 'slow-disk' });
    const seen: { type: string; stored: string | undefined }[] = [];
    for await (const event of queue.follow('slow-disk')) {
      if (seen.length === 0) seen.push({ type: event.type, stored: (await memory.readRun('slow-disk'))?.status });
      else seen.push({ type: event.type, stored: undefined });
    }
    expect(seen[0]).toEqual({ type: 'run_start', stored: 'running' });
    expect(seen.at(-1)?.type).toBe('run_end');
  });
});
