// The zombie test: a worker paused (SIGSTOP) past its lock and lease, whose job the queue handed to another
// worker that finished the run, is woken (SIGCONT): nothing it does reaches the journal, no tool runs twice.
import { steerRun } from '@bridle/core';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue } from '../src/index';
import { type Child, startChild } from './child';
import { dropPrefix, dropSchema, newPrefix, newSchema, openSchemaStore, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('zombie worker test (Redis and Postgres)', { postgres: true });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

suite('@bridle/queue: a worker that lost its job', () => {
  it('paused past its lease, then woken after another finished the run: nothing reaches the journal, no tool runs twice', async () => {
    const prefix = newPrefix();
    const schema = newSchema();
    const store = await openSchemaStore(schema);
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    const children: Child[] = [];
    cleanups.push(async () => {
      for (const child of children) {
        child.process.kill('SIGCONT');
        if (child.process.exitCode === null) child.process.kill('SIGKILL');
      }
      await Promise.all(children.map((child) => child.exited));
      await queue.close();
      await store.close();
      await dropSchema(schema);
      await dropPrefix(prefix, REDIS_URL);
    });
    const start = async () => {
      const child = startChild('zombie-worker.ts', [REDIS_URL, schema, prefix]);
      children.push(child);
      await child.waitFor((line) => line === 'ready');
      return child;
    };
    const zombie = await start();
    const paused = zombie.waitFor((line) => line === 'start zombie 1').then(() => zombie.process.kill('SIGSTOP'));
    const { jobId } = await queue.enqueue({ prompt: 'zombie', model: 'test:two-step', runId: 'zombie' });
    await paused;
    // Input sent while nobody runs it (the lease expired) is kept in its journal, for the worker that takes it.
    await expect
      .poll(async () => Date.parse((await store.listRuns({ status: 'running' }))[0]?.leaseUntil ?? '0') < Date.now(), {
        timeout: 10_000,
        interval: 100,
      })
      .toBe(true);
    expect(await steerRun({ store, runId: 'zombie', content: 'round it', by: 'ops', channels: [queue] })).toEqual({
      runId: 'zombie',
      delivery: 'journal',
    });
    // While it is stopped, the queue finds its lock expired and hands the job to the next worker.
    const rescuer = await start();
    const settled = await queue.settled(jobId);
    expect(settled.state).toBe('completed');
    expect(settled.result).toMatchObject({ status: 'completed', answer: 'answer: zombie' });
    const finished = await store.readRun('zombie');
    expect(finished?.status).toBe('completed');

    zombie.process.kill('SIGCONT');
    // Woken, it finishes its model call and tries to journal it: the store refuses (fenced) and it stops.
    const stopped = await zombie.waitFor((line) => line.startsWith('log warn job zombie:'));
    expect(stopped).toMatch(/Run zombie stopped here: another process owns it now .*fencing token 1 is stale/);
    // Let whatever else it would do happen (a late write would show below).
    await new Promise((resolve) => setTimeout(resolve, 1000));

    expect(await store.readRun('zombie')).toEqual(finished);
    const events = finished?.events ?? [];
    expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
    const tools = [...zombie.lines, ...rescuer.lines].filter((line) => line === 'tool zombie');
    expect(tools).toHaveLength(1);
    expect(rescuer.lines).toContain('tool zombie');
    expect(rescuer.lines).toContain('told round it');
    expect(events.find((event) => event.type === 'input')).toMatchObject({ content: 'round it', by: 'ops' });
    expect(zombie.lines).not.toContain('start zombie 2');
  }, 120_000);
});
