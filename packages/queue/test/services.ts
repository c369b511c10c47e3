import { randomBytes } from 'node:crypto';
import type { Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, it } from 'vitest';

/** The test services: `BRIDLE_TEST_REDIS_URL` / `BRIDLE_TEST_POSTGRES_URL`, default the machine's. */
export const REDIS_URL = process.env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const POSTGRES_URL = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function redisProblem(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `no Redis at ${REDIS_URL} (${(error as Error).message}); set BRIDLE_TEST_REDIS_URL`;
  } finally {
    client.disconnect();
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
 * `describe` when the services answer; otherwise one loud line and `describe.skip`, except under CI=true,
 * where a missing service is a failing test.
 */
export async function serviceSuite(
  name: string,
  needs: { postgres?: boolean },
): Promise<(name: string, body: () => void) => void> {
  const problems = [await redisProblem(), needs.postgres ? await postgresProblem() : undefined].filter(
    (problem): problem is string => problem !== undefined,
  );
  if (problems.length === 0) return describe;
  if (process.env.CI === 'true') {
    it(`${name}: services are reachable (required when CI=true)`, () => {
      throw new Error(problems.join('; '));
    });
    return describe.skip;
  }
  console.warn(`SKIPPED @bridle/queue ${name}: ${problems.join('; ')}`);
  return describe.skip;
}

/** A key prefix no other test uses. */
export function newPrefix(): string {
  return `bridle-test-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every Redis key under `prefix`. */
export async function dropPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** A Postgres schema no other test uses, and a store on it. */
export function newSchema(): string {
  return `bridle_queue_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function openSchemaStore(schema: string): Promise<Store> {
  return openStore(POSTGRES_URL, { schema, connectTimeoutMs: 20_000 });
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

/** A TCP port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
