import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { openRunQueue } from '@bridle/queue';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, fakeOpenAIEnv, requireBuild, runCli, startCli } from './cli-process';

const REDIS_URL = process.env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function problem(): Promise<string | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await redis.connect();
    await client.connect();
    return undefined;
  } catch (error) {
    return `Redis at ${REDIS_URL} and Postgres at ${POSTGRES_URL} are needed (${(error as Error).message}); set BRIDLE_TEST_REDIS_URL / BRIDLE_TEST_POSTGRES_URL`;
  } finally {
    redis.disconnect();
    await client.end().catch(() => {});
  }
}
const missing = await problem();
if (missing && process.env.CI !== 'true') console.warn(`SKIPPED bridle worker tests: ${missing}`);
const suite = missing && process.env.CI !== 'true' ? describe.skip : describe;

beforeAll(requireBuild);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

async function dropPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A fresh prefix and Postgres schema (removed after the test), and a producer on them. */
async function deployment() {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const prefix = `bridle-cli-test-${id}`;
  const schema = `bridle_cli_test_${id}`;
  const storeUrl = `${POSTGRES_URL}?schema=${schema}`;
  const queue = await openRunQueue({ redis: REDIS_URL, prefix });
  cleanups.push(async () => {
    await queue.close();
    await dropPrefix(prefix);
    await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  return { prefix, schema, storeUrl, queue };
}

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function startWorker(args: string[], env: Record<string, string>): CliProcess {
  const worker = startCli(['worker', ...args], { env });
  cleanups.push(async () => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await worker.exited;
  });
  return worker;
}

const usage = { inputTokens: 10, outputTokens: 5 };

suite('bridle worker', () => {
  it('runs queued jobs against the shared store, refuses foreign endpoints and unknown skills, drains on SIGTERM (exit 0)', async () => {
    server = await fakeOpenAIServer(() => ({ content: 'queued answer', usage }));
    const { prefix, storeUrl, queue } = await deployment();
    const worker = startWorker(
      [
        '--redis',
        REDIS_URL,
        '--store',
        storeUrl,
        '--queue-prefix',
        prefix,
        '--concurrency',
        '2',
        '--rate-limit',
        '50/s',
      ],
      fakeOpenAIEnv(server),
    );
    await worker.waitFor(
      /bridle worker: worker ready: queue bridle-runs, prefix bridle-cli-test-\S+, Redis redis:\/\/\S+, concurrency 2, 50 model calls per 1000 ms per model\n/,
      'stderr',
    );
    await worker.waitFor('model openai:fake-model · skills assistant', 'stderr');

    await queue.enqueue({ prompt: 'hi', model: 'openai:fake-model', runId: 'ok-1' });
    await queue.enqueue({ prompt: 'hi', model: 'openai-compatible:http://127.0.0.1:9/v1#m', runId: 'foreign' });
    await queue.enqueue({ prompt: 'hi', model: 'openai:fake-model', skill: 'coding', runId: 'no-skill' });
    expect((await queue.settled('ok-1')).result).toMatchObject({ status: 'completed', answer: 'queued answer', usage });
    expect(await queue.settled('foreign')).toMatchObject({
      state: 'failed',
      failedReason:
        "model openai-compatible:http://127.0.0.1:9/v1#m points at http://127.0.0.1:9/v1, an endpoint this worker's settings did not choose (it runs openai:fake-model): start a worker with --model for that endpoint to run such jobs.",
    });
    expect(await queue.settled('no-skill')).toMatchObject({
      state: 'failed',
      failedReason:
        'skill "coding" is not offered by this worker (it offers assistant): start a worker with --skill coding.',
    });
    expect(server.requests).toHaveLength(1);
    // The run is journaled in the shared store.
    const store = await openStore(storeUrl);
    expect((await store.readRun('ok-1'))?.status).toBe('completed');
    await store.close();

    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('bridle worker: stopping: draining 0 running job(s) (up to 30000 ms)');
    expect(exit.stderr).toMatch(/bridle worker: stopped\n$/);
  });

  it('SIGTERM with a job running: it finishes within --drain-timeout, then the worker exits 0', async () => {
    let answered = 0;
    server = await fakeOpenAIServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      answered++;
      return { content: 'slow answer', usage };
    });
    const { prefix, storeUrl, queue } = await deployment();
    const worker = startWorker(
      ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix, '--drain-timeout', '60s'],
      fakeOpenAIEnv(server),
    );
    await worker.waitFor('worker ready', 'stderr');
    await queue.enqueue({ prompt: 'slow', model: 'openai:fake-model', runId: 'slow-1' });
    await expect.poll(() => server?.requests.length, { timeout: 20_000 }).toBe(1);
    worker.child.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toContain('stopping: draining 1 running job(s) (up to 60000 ms)');
    expect(answered).toBe(1);
    expect((await queue.job('slow-1')).result).toMatchObject({ status: 'completed', answer: 'slow answer' });
  });

  it('bad configuration exits 2 naming the problem: missing --redis or --store, memory: store, bad rate, services down', async () => {
    const env = fakeOpenAIEnv({ baseURL: 'http://127.0.0.1:9/v1' });
    const noRedis = await runCli(['worker', '--store', POSTGRES_URL], { env });
    expect(noRedis.code).toBe(2);
    expect(noRedis.stderr).toContain('No Redis for the queue: give --redis redis://host:6379 or set BRIDLE_REDIS_URL.');
    const noStore = await runCli(['worker', '--redis', REDIS_URL], { env });
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain('No store: workers and producers must share one.');
    const memory = await runCli(['worker', '--redis', REDIS_URL, '--store', 'memory:'], { env });
    expect(memory.code).toBe(2);
    expect(memory.stderr).toContain('--store memory: cannot be shared between processes');
    const rate = await runCli(['worker', '--redis', REDIS_URL, '--store', POSTGRES_URL, '--rate-limit', '5/hour'], {
      env,
    });
    expect(rate.code).toBe(2);
    expect(rate.stderr).toContain('expected <calls>/s or <calls>/min, e.g. 10/s or 500/min, got "5/hour".');
    const port = await closedPort();
    const redisDown = await runCli(['worker', '--redis', `redis://127.0.0.1:${port}`, '--store', POSTGRES_URL], {
      env,
    });
    expect(redisDown.code).toBe(2);
    expect(redisDown.stderr).toContain(`Cannot reach Redis at redis://127.0.0.1:${port}: connect ECONNREFUSED`);
    const postgresDown = await runCli(
      ['worker', '--redis', REDIS_URL, '--store', `postgres://postgres@127.0.0.1:${port}/test`],
      { env },
    );
    expect(postgresDown.code).toBe(2);
    expect(postgresDown.stderr).toContain(
      `bridle: cannot reach Postgres at postgres://postgres@127.0.0.1:${port}/test (waited at most 10000 ms): connect ECONNREFUSED`,
    );
  });
});
