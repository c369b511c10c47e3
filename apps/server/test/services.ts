import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { openRunQueue } from '@bridle/queue';
import pg from 'pg';
import { describe, it } from 'vitest';

/** The test services: `BRIDLE_TEST_REDIS_URL` / `BRIDLE_TEST_POSTGRES_URL`, default the machine's. */
export const REDIS_URL = process.env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function redisProblem(): Promise<string | undefined> {
  try {
    const queue = await openRunQueue({ redis: REDIS_URL, prefix: newPrefix(), connectTimeoutMs: 3000 });
    await queue.close();
    return undefined;
  } catch (error) {
    return `no Redis at ${REDIS_URL} (${(error as Error).message}); set BRIDLE_TEST_REDIS_URL`;
  }
}

async function postgresProblem(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no Postgres at ${POSTGRES_URL} (${(error as Error).message}); set BRIDLE_TEST_POSTGRES_URL`;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * `describe` when Redis and Postgres answer; otherwise one loud line and `describe.skip`, except under
 * CI=true, where a missing service is a failing test.
 */
export async function serviceSuite(name: string): Promise<typeof describe | typeof describe.skip> {
  const problems = [await redisProblem(), await postgresProblem()].filter(
    (problem): problem is string => problem !== undefined,
  );
  if (problems.length === 0) return describe;
  if (process.env.CI === 'true') {
    it(`${name}: services are reachable (required when CI=true)`, () => {
      throw new Error(problems.join('; '));
    });
    return describe.skip;
  }
  console.warn(`\n*** SKIPPED @bridle/server ${name}: ${problems.join('; ')} ***\n`);
  return describe.skip;
}

/** A queue key prefix no other test uses. */
export function newPrefix(): string {
  return `bridle-server-test-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every Redis key under `prefix` (the queue's and the runs' event streams). */
export async function dropPrefix(prefix: string): Promise<void> {
  const queue = await openRunQueue({ redis: REDIS_URL, prefix });
  try {
    // BullMQ's own ioredis connection (the server does not depend on ioredis itself).
    const client = (await queue.queue.getBackend().client) as unknown as {
      scan(...args: (string | number)[]): Promise<[string, string[]]>;
      del(...keys: string[]): Promise<number>;
    };
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    await queue.close();
  }
}

/** A Postgres schema no other test uses, as a store URL (`?schema=`). */
export function newSchemaStoreUrl(): { schema: string; url: string } {
  const schema = `bridle_server_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  return { schema, url: `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}` };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A worker process (`test/fixtures/queue-worker.ts`), ready once it printed `ready`. */
export interface WorkerProcess {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number | null>;
  output(): string;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts a worker of `prefix` on `storeUrl` from source as a real process. */
export function startWorker(prefix: string, storeUrl: string): WorkerProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@bridle/source', '--import', 'tsx', 'test/fixtures/queue-worker.ts', REDIS_URL, storeUrl, prefix],
    { cwd: root, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      if (/^ready$/m.test(output)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`the worker exited early:\n${output}`)));
  });
  return { child, ready, exited, output: () => output };
}
