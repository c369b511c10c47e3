import { ConfigError } from '@bridle/protocol';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type RunJobSpec, submitAll } from '../src/index';
import { startRoundTripProxy } from './round-trip-proxy';
import { dropPrefix, newPrefix, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('bulk enqueue (Redis)', {});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A producer reaching Redis through a proxy that counts its round trips. */
async function setup() {
  const prefix = newPrefix();
  const proxy = await startRoundTripProxy(REDIS_URL);
  const queue = await openRunQueue({ redis: proxy.url, prefix });
  cleanups.push(async () => {
    await queue.close();
    await proxy.close();
    await dropPrefix(prefix);
  });
  return { queue, proxy };
}

function specs(count: number): RunJobSpec[] {
  return Array.from({ length: count }, (_, n) => ({ prompt: `item ${n}`, model: 'test:two-step', runId: `item-${n}` }));
}

suite('@bridle/queue bulk enqueue', () => {
  it('enqueueMany adds 3000 jobs in a few round trips; enqueueing them again adds nothing', async () => {
    const { queue, proxy } = await setup();
    const before = proxy.roundTrips;
    const added = await queue.enqueueMany(specs(3000));
    // Three chunks of 1000 (and a script load): one enqueue per spec would be 3000.
    expect(proxy.roundTrips - before).toBeLessThanOrEqual(12);
    expect(added).toHaveLength(3000);
    expect(added[2999]).toEqual({ jobId: 'item-2999', runId: 'item-2999' });
    expect(await queue.queue.count()).toBe(3000);
    const again = await queue.enqueueMany([...specs(3000), { prompt: 'new', model: 'test:two-step', runId: 'new' }]);
    expect(again.map((entry) => entry.runId).slice(0, 2)).toEqual(['item-0', 'item-1']);
    expect(await queue.queue.count()).toBe(3001);
    expect((await queue.queue.getJob('item-7'))?.data).toMatchObject({ prompt: 'item 7', runId: 'item-7' });
    const fresh = await queue.enqueueMany([{ prompt: 'no id', model: 'test:two-step' }]);
    // A job without a runId gets a new time-ordered (version 7) run id.
    expect(fresh[0]?.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('enqueueMany checks every spec first: one refused spec enqueues nothing and is named by its index', async () => {
    const { queue } = await setup();
    const batch = [...specs(2), { model: 'test:two-step', runId: 'no-input' } as RunJobSpec];
    const refused = queue.enqueueMany(batch);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      'Run job 2 of 3: Invalid run job: the input must be exactly one of prompt (a string) or messages (an array), got undefined. Nothing was enqueued.',
    );
    expect(await queue.queue.count()).toBe(0);
  });

  it('submitAll (bridle batch --queue) enqueues 2000 items in bulk, not one round trip each', async () => {
    const { queue, proxy } = await setup();
    const controller = new AbortController();
    const before = proxy.roundTrips;
    const submitted = submitAll(queue, specs(2000), {
      onSettled: () => {},
      signal: controller.signal,
      pollMs: 60_000,
    });
    await expect.poll(() => queue.queue.count(), { timeout: 20_000 }).toBe(2000);
    const used = proxy.roundTrips - before;
    controller.abort();
    await submitted;
    // The bulk adds, starting the queue events, and the count polls above: far from 2000.
    expect(used).toBeLessThan(100);
  });
});
