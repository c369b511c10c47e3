import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { openRunQueue } from '@bridle/queue';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer, fakeOtlpCollector } from '@bridle/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';

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
  }, 120_000);

  it('sends each job as OpenTelemetry spans with OTEL_EXPORTER_OTLP_ENDPOINT, flushed when it stops', async () => {
    server = await fakeOpenAIServer(() => ({ content: 'queued answer', usage }));
    const collector = await fakeOtlpCollector();
    cleanups.push(() => collector.close());
    const { prefix, storeUrl, queue } = await deployment();
    const worker = startWorker(
      ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix],
      fakeOpenAIEnv(server, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }),
    );
    await worker.waitFor('model openai:fake-model · skills assistant', 'stderr');
    await queue.enqueue({ prompt: 'hi', model: 'openai:fake-model', runId: 'traced-1' });
    expect((await queue.settled('traced-1')).result).toMatchObject({ status: 'completed' });
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
    const spans = collector.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(['chat fake-model', 'invoke_agent']);
    const run = spans.find((span) => span.name === 'invoke_agent');
    expect(run?.attributes['bridle.run_id']).toBe('traced-1');
    expect(run?.resource['service.name']).toBe('bridle');
  }, 120_000);

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
  }, 120_000);

  it('bad configuration exits 2 naming the problem: missing --redis or --store, memory: store, bad rate, services down', async () => {
    const env = fakeOpenAIEnv({ baseURL: 'http://127.0.0.1:9/v1' });
    const noRedis = await runCli(['worker', '--store', POSTGRES_URL], { env });
    expect(noRedis.code).toBe(2);
    expect(noRedis.stderr).toContain('No Redis for the queue: give --redis redis://host:6379 or set BRIDLE_REDIS_URL.');
    const { BRIDLE_STORE: _memory, ...withoutStore } = env;
    const noStore = await runCli(['worker', '--redis', REDIS_URL], { env: withoutStore });
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
  }, 120_000);
});

function resultLines(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

suite('bridle batch --queue', () => {
  it('with no worker consuming the queue, the producer says so and how to start one; a worker then runs the items', async () => {
    server = await fakeOpenAIServer((request) => ({
      content: `answer ${/item (\w+)/.exec(JSON.stringify(request.body))?.[1]}`,
      usage,
    }));
    const { prefix, storeUrl } = await deployment();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'in.jsonl'),
      `${['a', 'b'].map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join('\n')}\n`,
    );
    const producer = startCli(
      [
        'batch',
        'in.jsonl',
        '--out',
        'results.jsonl',
        '--queue',
        REDIS_URL,
        '--store',
        storeUrl,
        '--queue-prefix',
        prefix,
      ],
      { env: cliEnv({ BRIDLE_MODEL: 'openai:fake-model' }), cwd: dir },
    );
    cleanups.push(async () => {
      if (producer.child.exitCode === null) producer.child.kill('SIGKILL');
      await producer.exited;
    });
    await producer.waitFor('No worker is consuming queue', 'stderr');
    expect(producer.stderr()).toContain(
      `No worker is consuming queue ${prefix}:bridle-runs: the items wait there. Start one (with the model's key in its environment): bridle worker --redis ${REDIS_URL} --store ${storeUrl} --queue-prefix ${prefix}\n`,
    );
    // The worker it names, with a model id that carries credentials: its start line shows the id without them.
    const secretModel = `openai-compatible:http://bridle-user:hunter2-7f3@127.0.0.1:9/v1?api-key=sk-secret-7f3#fake-model`;
    const worker = startWorker(
      ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix],
      fakeOpenAIEnv(server, { BRIDLE_MODEL: 'openai:fake-model' }),
    );
    const other = startWorker(
      ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', `${prefix}-other`, '--model', secretModel],
      cliEnv(),
    );
    await other.waitFor(' · skills ', 'stderr');
    expect(other.stderr()).toContain('model openai-compatible:http://127.0.0.1:9/v1#fake-model');
    expect(other.stderr()).not.toMatch(/hunter2|sk-secret|bridle-user/);
    const done = await producer.exited;
    expect(done.stderr).toMatch(/^Done: 2 completed · 0 failed/m);
    expect(done.stderr.split('No worker is consuming').length).toBe(2);
    expect(done.code).toBe(0);
    expect(
      resultLines(dir)
        .map((line) => line.id)
        .sort(),
    ).toEqual(['a', 'b']);
    worker.child.kill('SIGTERM');
    other.child.kill('SIGTERM');
  }, 120_000);

  it('enqueues the items for workers, writes each result once (with its runId); a rerun skips what is done', async () => {
    server = await fakeOpenAIServer((request) => ({
      content: `answer ${/item (\w+)/.exec(JSON.stringify(request.body))?.[1]}`,
      usage,
    }));
    const { prefix, storeUrl } = await deployment();
    const env = fakeOpenAIEnv(server);
    const workerArgs = ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix, '--concurrency', '2'];
    const workers = [startWorker(workerArgs, env), startWorker(workerArgs, env)];
    for (const worker of workers) await worker.waitFor('worker ready', 'stderr');
    const dir = tempDir();
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    writeFileSync(
      join(dir, 'in.jsonl'),
      `${[...ids.map((id) => JSON.stringify({ id, prompt: `item ${id}` })), '{"id": "broken",'].join('\n')}\n`,
    );
    const batchArgs = [
      'batch',
      'in.jsonl',
      '--out',
      'results.jsonl',
      '--queue',
      REDIS_URL,
      '--store',
      storeUrl,
      '--queue-prefix',
      prefix,
      '--max-cost',
      '5',
    ];
    // The producer holds no key: only the model id.
    const producerEnv = cliEnv({ BRIDLE_MODEL: 'openai:fake-model' });
    const first = await runCli(batchArgs, { env: producerEnv, cwd: dir });
    expect(first.stderr).toContain('in.jsonl:7: skipped: not valid JSON');
    expect(first.stderr).toMatch(/^6 to run, 1 bad line · openai:fake-model · queue bridle-cli-test-\S+:bridle-runs$/m);
    expect(first.stderr).toMatch(
      /^Done: 6 completed · 0 failed · 1 bad line · 60 in \/ 30 out tokens · [\d.]+s → results\.jsonl$/m,
    );
    expect(first.code).toBe(1);
    const lines = resultLines(dir);
    expect(lines.map((line) => line.id).sort()).toEqual(ids);
    for (const line of lines) {
      expect(line).toEqual({
        id: line.id,
        status: 'completed',
        answer: `answer ${line.id}`,
        attempts: 1,
        steps: 1,
        toolCalls: 0,
        usage,
        runId: expect.stringMatching(new RegExp(`^batch-[0-9a-f]{16}-${line.id}$`)),
        durationMs: expect.any(Number),
      });
    }
    // --max-cost travels with each job, for the workers to apply.
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    expect((await queue.queue.getJob(lines[0]?.runId as string))?.data).toMatchObject({ maxCostUsd: 5 });
    await queue.close();
    // The runs are journaled in the shared store under those run ids.
    const store = await openStore(storeUrl);
    expect((await store.readRun(lines[0]?.runId as string))?.status).toBe('completed');
    await store.close();

    const again = await runCli(batchArgs, { env: producerEnv, cwd: dir });
    expect(again.stderr).toMatch(/^0 to run, 6 already in results\.jsonl, 1 bad line/m);
    expect(resultLines(dir)).toHaveLength(6);
    expect(server.requests).toHaveLength(6);
  }, 120_000);

  it('a producer killed mid-batch and run again writes every result exactly once; no item runs twice', async () => {
    server = await fakeOpenAIServer(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { content: `answer ${/item (\w+)/.exec(JSON.stringify(request.body))?.[1]}`, usage };
    });
    const { prefix, storeUrl } = await deployment();
    const worker = startWorker(
      ['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix, '--concurrency', '2'],
      fakeOpenAIEnv(server),
    );
    await worker.waitFor('worker ready', 'stderr');
    const dir = tempDir();
    const ids = Array.from({ length: 12 }, (_, index) => `i${index}`);
    writeFileSync(
      join(dir, 'in.jsonl'),
      `${ids.map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join('\n')}\n`,
    );
    const batchArgs = [
      'batch',
      'in.jsonl',
      '--out',
      'results.jsonl',
      '--queue',
      REDIS_URL,
      '--store',
      storeUrl,
      '--queue-prefix',
      prefix,
    ];
    const producerEnv = cliEnv({ BRIDLE_MODEL: 'openai:fake-model' });
    const producer = startCli(batchArgs, { env: producerEnv, cwd: dir });
    await producer.waitFor(/\[2\/12\]/, 'stderr');
    producer.child.kill('SIGKILL');
    await producer.exited;
    const rerun = await runCli(batchArgs, { env: producerEnv, cwd: dir });
    expect(rerun.code).toBe(0);
    const lines = resultLines(dir);
    expect(lines.map((line) => line.id).sort()).toEqual([...ids].sort());
    expect(new Set(lines.map((line) => line.runId)).size).toBe(12);
    const asked = server.requests.map((request) => /item (\w+)/.exec(JSON.stringify(request.body))?.[1]);
    expect(asked.sort()).toEqual([...ids].sort());
  }, 120_000);

  it('--queue refuses worker settings and several skills (exit 2)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'in.jsonl'), '{"id": "a", "prompt": "x"}\n');
    const env = cliEnv({ BRIDLE_MODEL: 'openai:fake-model' });
    const base = ['batch', 'in.jsonl', '--out', 'results.jsonl', '--queue', REDIS_URL, '--store', POSTGRES_URL];
    const workspace = await runCli([...base, '--workspace', dir], { env, cwd: dir });
    expect(workspace.code).toBe(2);
    expect(workspace.stderr).toContain(
      '--workspace is a setting of the workers with --queue: give it to `bridle worker`, which runs the tools.',
    );
    const skills = await runCli([...base, '--skill', 'assistant', '--skill', 'analyst'], { env, cwd: dir });
    expect(skills.code).toBe(2);
    expect(skills.stderr).toContain('--queue takes one --skill (the name a worker offers), got assistant, analyst');
    const { BRIDLE_STORE: _memory, ...withoutStore } = env;
    const noStore = await runCli(base.slice(0, -2), { env: withoutStore, cwd: dir });
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain('No store: workers and producers must share one.');
  }, 120_000);
});
