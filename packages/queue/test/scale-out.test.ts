import { spawn } from 'node:child_process';
import type { RunEvent, Store } from '@bridle/protocol';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type QueuedJob, type RunQueue, submitAll } from '../src/index';
import { type Child, startChild } from './child';
import {
  closedPort,
  dropPrefix,
  dropSchema,
  newPrefix,
  newSchema,
  openSchemaStore,
  REDIS_URL,
  serviceSuite,
} from './services';

const suite = await serviceSuite('scale-out tests (Redis and Postgres)', { postgres: true });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

async function setup(redis = REDIS_URL) {
  const prefix = newPrefix();
  const schema = newSchema();
  const store = await openSchemaStore(schema);
  const queue = await openRunQueue({ redis, prefix, backoffMs: 200 });
  const children: Child[] = [];
  cleanups.push(async () => {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await queue.close();
    await store.close();
    await dropSchema(schema);
    await dropPrefix(prefix, redis);
  });
  const startWorker = async (concurrency = 2) => {
    const child = startChild('worker.ts', [redis, schema, prefix, String(concurrency)]);
    children.push(child);
    await child.waitFor((line) => line === 'ready');
    return child;
  };
  return { prefix, store, queue, startWorker, children };
}

function items(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    prompt: `item-${index}`,
    model: 'test:two-step',
    runId: `item-${index}`,
  }));
}

/** Runs `specs` to the end; each settled job once, by run id. */
async function settleAll(queue: RunQueue, specs: ReturnType<typeof items>, onSettled?: (count: number) => void) {
  const settled: QueuedJob[] = [];
  await submitAll(queue, specs, {
    onSettled(job) {
      settled.push(job);
      onSettled?.(settled.length);
    },
  });
  return settled;
}

/** Every run's journal: one run_end, completed; each step's model call journaled once. */
async function expectJournaledOnce(store: Store, runIds: string[]) {
  for (const runId of runIds) {
    const run = await store.readRun(runId);
    const events = run?.events ?? [];
    expect({ runId, status: run?.status }).toEqual({ runId, status: 'completed' });
    expect(events.filter((event) => event.type === 'run_end')).toHaveLength(1);
    const modelEnds = events.filter(
      (event): event is Extract<RunEvent, { type: 'model_end' }> => event.type === 'model_end',
    );
    expect(modelEnds.map((event) => event.step)).toEqual([1, 2]);
  }
}

suite('@bridle/queue scale-out with Redis and Postgres', () => {
  it("3 workers, one SIGKILLed mid-batch: every item is completed exactly once, the dead worker's run resumed", async () => {
    const { queue, store, startWorker } = await setup();
    const workers = [await startWorker(), await startWorker(), await startWorker()];
    const specs = items(24);
    const victim = workers[1] as Child;
    const killed = victim
      .waitFor((line) => /^start item-\d+ 2$/.test(line))
      .then((line) => {
        victim.process.kill('SIGKILL');
        return line.split(' ')[1] as string;
      });
    const settled = await settleAll(queue, specs);
    const interrupted = await killed;
    expect((await victim.exited).signal).toBe('SIGKILL');

    expect(settled.map((job) => job.jobId).sort()).toEqual(specs.map((spec) => spec.runId).sort());
    for (const job of settled) {
      expect(job.state).toBe('completed');
      expect(job.result).toMatchObject({ status: 'completed', answer: `answer: ${job.runId}`, steps: 2 });
    }
    await expectJournaledOnce(
      store,
      specs.map((spec) => spec.runId),
    );
    // The run the dead worker held was continued from its journal by another worker.
    const resumed = (await store.readRun(interrupted))?.events.filter(
      (event) => event.type === 'run_start' && event.resumed === true,
    );
    expect(resumed).toHaveLength(1);
  }, 180_000);

  it('a poison job that kills its worker every time is failed after maxStalledCount + 1 tries; the others complete', async () => {
    const { queue, startWorker, children } = await setup();
    let respawns = 0;
    const keepAlive = (child: Child) => {
      void child.exited.then(async () => {
        // A replacement killed during cleanup never gets ready: that is fine.
        if (respawns++ < 4 && !stopped) keepAlive(await startWorker(1).catch(() => child));
      });
    };
    let stopped = false;
    keepAlive(await startWorker(1));
    keepAlive(await startWorker(1));
    const specs = [{ prompt: 'crash', model: 'test:two-step', runId: 'poison' }, ...items(3)];
    const settled = await settleAll(queue, specs);
    stopped = true;
    const poison = settled.find((job) => job.jobId === 'poison');
    expect(poison?.state).toBe('failed');
    expect(poison?.failedReason).toBe('job stalled more than allowable limit');
    for (const job of settled.filter((entry) => entry.jobId !== 'poison')) expect(job.state).toBe('completed');
    const crashes = children.flatMap((child) => child.lines).filter((line) => line === 'start crash 1');
    expect(crashes).toHaveLength(2);
  }, 180_000);

  it('Redis restarted mid-batch (its data lost): workers reconnect, lost jobs are enqueued again, every item completes once', async () => {
    const port = await closedPort();
    const startRedis = () => {
      const server = spawn(
        '/usr/bin/redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      const exited = new Promise((resolve) => server.on('close', resolve));
      return { server, exited };
    };
    let redis = startRedis();
    cleanups.push(async () => {
      redis.server.kill('SIGKILL');
      await redis.exited;
    });
    const url = `redis://127.0.0.1:${port}`;
    await expect
      .poll(
        async () => {
          try {
            const probe = await openRunQueue({ redis: url, connectTimeoutMs: 1000 });
            await probe.close();
            return true;
          } catch {
            return false;
          }
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    const { queue, store, startWorker } = await setup(url);
    const workers = [await startWorker(), await startWorker()];
    const specs = items(16);
    let restarted: Promise<void> | undefined;
    const requeued: string[] = [];
    const settled: QueuedJob[] = [];
    await submitAll(queue, specs, {
      onRequeued: (runId) => requeued.push(runId),
      onSettled(job) {
        settled.push(job);
        if (settled.length === 4) {
          restarted = (async () => {
            redis.server.kill('SIGKILL');
            await redis.exited;
            await new Promise((resolve) => setTimeout(resolve, 1000));
            redis = startRedis();
          })();
        }
      },
    });
    await restarted;
    expect(settled.map((job) => job.jobId).sort()).toEqual(specs.map((spec) => spec.runId).sort());
    for (const job of settled)
      expect(job.result).toMatchObject({ status: 'completed', answer: `answer: ${job.runId}` });
    expect(requeued.length).toBeGreaterThan(0);
    await expectJournaledOnce(
      store,
      specs.map((spec) => spec.runId),
    );
    for (const worker of workers) {
      const outages = worker.lines.filter((line) => line.startsWith('log warn Redis at'));
      expect(outages.length).toBeGreaterThanOrEqual(1);
      // Only lost connections are reported as an outage (job-level trouble is logged as such).
      for (const line of outages) expect(line).toMatch(/failed \((read|connect|write) E[A-Z]+|Connection is closed/);
      expect(
        worker.lines.filter((line) => line.startsWith('log info Redis at') && line.endsWith('is back')).length,
      ).toBeGreaterThanOrEqual(1);
    }
  }, 180_000);
});
