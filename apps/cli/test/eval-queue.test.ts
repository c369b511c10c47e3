import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '@bridle/store';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';

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
if (missing && process.env.CI !== 'true') console.warn(`SKIPPED bridle eval --queue tests: ${missing}`);
const suite = missing && process.env.CI !== 'true' ? describe.skip : describe;

beforeAll(requireBuild);

const cleanups: (() => Promise<void>)[] = [];
let server: FakeProviderServer | undefined;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
  await server?.close();
  server = undefined;
});

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

function startWorker(args: string[], env: Record<string, string>): CliProcess {
  const worker = startCli(['worker', ...args], { env });
  cleanups.push(async () => {
    if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await worker.exited;
  });
  return worker;
}

suite('bridle eval --queue', { timeout: 180_000 }, () => {
  it('runs the cases on a worker, reads each run back from the shared store and scores it', async () => {
    server = await fakeOpenAIServer((request) => ({
      content: JSON.stringify(request.body).includes('2 + 2') ? '4' : 'no idea',
      usage: { inputTokens: 10, outputTokens: 5 },
    }));
    const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
    const prefix = `bridle-eval-test-${id}`;
    const schema = `bridle_eval_test_${id}`;
    const storeUrl = `${POSTGRES_URL}?schema=${schema}`;
    cleanups.push(async () => {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
      await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    });
    const env = fakeOpenAIEnv(server);
    const worker = startWorker(['--redis', REDIS_URL, '--store', storeUrl, '--queue-prefix', prefix], env);
    await worker.waitFor('model openai:fake-model', 'stderr');
    const cwd = tempDir('bridle-eval-queue-');
    writeFileSync(
      join(cwd, 'cases.jsonl'),
      `${JSON.stringify({ id: 'sum', input: 'What is 2 + 2?', expected: { answer: '4' } })}\n${JSON.stringify({ id: 'hard', input: 'Why?', expected: { answer: 'because' } })}\n`,
    );
    const run = await runCli(
      [
        'eval',
        'cases.jsonl',
        '-m',
        'openai:fake-model',
        '--queue',
        REDIS_URL,
        '--queue-prefix',
        prefix,
        '--store',
        storeUrl,
        '-o',
        'out.json',
        '--fail-under',
        '0.5',
      ],
      { cwd, env },
    );
    expect(run.stderr).toContain('✓ every variant and scorer at or above 50%');
    expect(run.code).toBe(0);
    const out = JSON.parse(readFileSync(join(cwd, 'out.json'), 'utf8'));
    expect(
      out.cases.map(
        (entry: { caseId: string; runId: string; status: string; scores: { scorer: string; score: number }[] }) => [
          entry.caseId,
          entry.runId,
          entry.status,
          entry.scores.map((score) => `${score.scorer} ${score.score}`),
        ],
      ),
    ).toEqual([
      ['sum', `eval.${out.evalId}.1.sum`, 'completed', ['exactAnswer 1', 'completedWithin 1']],
      ['hard', `eval.${out.evalId}.1.hard`, 'completed', ['exactAnswer 0', 'completedWithin 1']],
    ]);
    // The worker ran them: journaled in the shared store under the eval's run ids.
    const store = await openStore(storeUrl);
    expect((await store.readRun(`eval.${out.evalId}.1.sum`))?.status).toBe('completed');
    await store.close();
    expect(server.requests).toHaveLength(2);
  });
});
