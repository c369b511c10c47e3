/**
 * Scale-out throughput and overhead of @bridle/queue: 200 items on 1, 2 and 4 worker processes (each
 * concurrency 4, the CLI default, or BRIDLE_BENCH_CONCURRENCY), a fake model answering after 100 ms, runs journaled in Postgres. Reports
 * items/s for each, the scaling ratio against one worker and the worker processes' CPU per item
 * (after their startup; Postgres and Redis not counted); then, on idle workers, the overhead from
 * enqueue to the job's first model request (p50/p99 over 100 jobs sent one at a time).
 * Needs Redis (BRIDLE_TEST_REDIS_URL, default redis://127.0.0.1:6379) and Postgres (BRIDLE_TEST_POSTGRES_URL,
 * default postgres://postgres@127.0.0.1:5432/test); each run uses its own key prefix and schema, removed after.
 * Run: pnpm bench queue
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ModelRequest } from '../../packages/protocol/src/index';
import { openRunQueue, type RunQueue, startRunWorker, submitAll } from '../../packages/queue/src/index';
import { openStore } from '../../packages/store/src/index';

const REDIS = process.env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ITEMS = 200;
const LATENCY_MS = 100;
/** Jobs each worker runs at once: the CLI default 4, or BRIDLE_BENCH_CONCURRENCY (1 measures workers as the only unit of scale). */
// biome-ignore lint/suspicious/noUndeclaredEnvVars: a benchmark's knob; benchmarks are not turbo tasks
const CONCURRENCY = Number(process.env.BRIDLE_BENCH_CONCURRENCY ?? 4);

/** A worker process: `scale.mjs worker <prefix> <schema>`; its model answers with the time of the request. */
async function worker(prefix: string, schema: string): Promise<void> {
  const store = await openStore(POSTGRES, { schema });
  const model = {
    id: 'bench:fake',
    async generate(_request: ModelRequest) {
      const at = Date.now();
      await new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
      return { content: String(at), usage: { inputTokens: 10, outputTokens: 1 } };
    },
  };
  const running = await startRunWorker({
    redis: REDIS,
    store,
    prefix,
    concurrency: CONCURRENCY,
    agent: () => ({ model }),
  });
  const ready = process.cpuUsage();
  console.log('ready');
  process.on('SIGTERM', () => {
    const { user, system } = process.cpuUsage(ready);
    console.log(`cpu ${(user + system) / 1000}`);
    void running.close().then(() => store.close().then(() => process.exit(0)));
  });
}

function startWorkers(count: number, prefix: string, schema: string) {
  const self = fileURLToPath(import.meta.url);
  return Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(process.execPath, [self, 'worker', prefix, schema], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((resolve) => child.on('close', resolve));
      let cpuMs = 0;
      return new Promise<{ stop(): Promise<number> }>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          if (line.startsWith('cpu ')) cpuMs = Number(line.slice(4));
          if (line === 'ready')
            resolve({
              async stop() {
                child.kill('SIGTERM');
                await exited;
                return cpuMs;
              },
            });
        });
      });
    }),
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function dropAll(prefix: string, schema: string): Promise<void> {
  const { Redis } = await import('../../packages/queue/node_modules/ioredis/built/index.js');
  const redis = new Redis(REDIS);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
  const { default: pg } = await import('../../packages/store/node_modules/pg/lib/index.js');
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** CPU ms the worker processes used in the last deployment (user + system, Postgres and Redis not included). */
let workerCpuMs = 0;

async function deployment<T>(workers: number, body: (queue: RunQueue) => Promise<T>): Promise<T> {
  const id = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const prefix = `bench-queue-${id}`;
  const schema = `bench_queue_${id}`;
  await (await openStore(POSTGRES, { schema })).close(); // migrate once, before the workers race to
  const queue = await openRunQueue({ redis: REDIS, prefix });
  const running = await startWorkers(workers, prefix, schema);
  try {
    return await body(queue);
  } finally {
    workerCpuMs = (await Promise.all(running.map((child) => child.stop()))).reduce((sum, ms) => sum + ms, 0);
    await queue.close();
    await dropAll(prefix, schema);
  }
}

async function throughput(workers: number): Promise<number> {
  return deployment(workers, async (queue) => {
    const specs = Array.from({ length: ITEMS }, (_, index) => ({ prompt: `item ${index}`, model: 'bench:fake' }));
    const started = performance.now();
    let completed = 0;
    await submitAll(queue, specs, { onSettled: (job) => void (job.state === 'completed' && completed++), pollMs: 50 });
    const seconds = (performance.now() - started) / 1000;
    if (completed !== ITEMS) throw new Error(`${completed} of ${ITEMS} completed`);
    return ITEMS / seconds;
  });
}

async function overhead(): Promise<number[]> {
  return deployment(1, async (queue) => {
    const delays: number[] = [];
    for (let index = 0; index < 100; index++) {
      const sent = Date.now();
      const { jobId } = await queue.enqueue({ prompt: `probe ${index}`, model: 'bench:fake' });
      const job = await queue.settled(jobId, { pollMs: 20 });
      delays.push(Number(job.result?.answer) - sent);
    }
    return delays.sort((a, b) => a - b);
  });
}

if (process.argv[2] === 'worker') {
  await worker(process.argv[3] as string, process.argv[4] as string);
} else {
  console.log(
    `${ITEMS} items, fake model ${LATENCY_MS} ms, concurrency ${CONCURRENCY} per worker process, Postgres journal`,
  );
  const rates: number[] = [];
  for (const workers of [1, 2, 4]) {
    const rate = await throughput(workers);
    rates.push(rate);
    console.log(
      `${workers} worker${workers === 1 ? ' ' : 's'}: ${rate.toFixed(1)} items/s   scaling ${(rate / (rates[0] as number)).toFixed(2)}x   worker CPU ${(workerCpuMs / ITEMS).toFixed(1)} ms/item`,
    );
  }
  const delays = await overhead();
  console.log(
    `enqueue -> first model request (idle worker, 100 jobs one at a time): p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms`,
  );
}
