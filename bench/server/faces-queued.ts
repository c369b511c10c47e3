/**
 * The cost of each protocol face on queue workers (`BRIDLE_REDIS_URL`): one server and one worker (in this
 * process, concurrency 4) on Redis and a Postgres store, a scripted model that answers at once; 40 turns sent
 * one at a time (after 5 warm-ups) through `POST /api/chat` (JSON), `POST /api/ui/chat` (the UI message stream,
 * read to its end) and `POST /a2a` (`message/send`), each a new conversation. Reports min and median ms per
 * turn, and the load average. Needs Redis (BRIDLE_TEST_REDIS_URL, default redis://127.0.0.1:6379) and
 * Postgres (BRIDLE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test); the run's key
 * prefix and schema are removed after.
 * Run: pnpm bench faces-queued
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createServer } from '../../apps/server/src/index';
import { startRunWorker } from '../../packages/queue/src/index';
import { openStore } from '../../packages/store/src/index';
import { scriptedModel } from '../../packages/testing/src/index';

const REDIS = process.env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TURNS = 40;
const WARMUP = 5;

const id = `${process.pid}_${randomBytes(3).toString('hex')}`;
const prefix = `bench-faces-${id}`;
const schema = `bench_faces_${id}`;
const storeUrl = `${POSTGRES}${POSTGRES.includes('?') ? '&' : '?'}schema=${schema}`;

async function dropAll(): Promise<void> {
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

async function post(url: string, body: unknown, accept = 'application/json'): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text}`);
  return text;
}

const FACES: Record<string, (url: string, index: number) => Promise<void>> = {
  '/api/chat': async (url, index) => {
    const answer = JSON.parse(await post(`${url}/api/chat`, { prompt: `turn ${index}` }));
    if (answer.status !== 'completed') throw new Error(`/api/chat: ${JSON.stringify(answer)}`);
  },
  '/api/ui/chat': async (url, index) => {
    const text = await post(`${url}/api/ui/chat`, {
      id: randomUUID(),
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: `turn ${index}` }] }],
    });
    if (!text.includes('"finishReason":"stop"')) throw new Error(`/api/ui/chat: ${text}`);
  },
  '/a2a message/send': async (url, index) => {
    const message = {
      kind: 'message',
      messageId: randomUUID(),
      role: 'user',
      parts: [{ kind: 'text', text: `turn ${index}` }],
    };
    const answer = JSON.parse(
      await post(`${url}/a2a`, { jsonrpc: '2.0', id: index, method: 'message/send', params: { message } }),
    );
    if (answer.result?.status?.state !== 'completed') throw new Error(`/a2a: ${JSON.stringify(answer)}`);
  },
};

const store = await openStore(storeUrl);
const model = scriptedModel(() => ({ content: 'ok', usage: { inputTokens: 1, outputTokens: 1 } }), {
  id: 'bench:fake',
});
const worker = await startRunWorker({ redis: REDIS, store, prefix, concurrency: 4, agent: () => ({ model }) });
const server = createServer({
  env: {},
  logger: false,
  port: 0,
  store: storeUrl,
  redis: REDIS,
  queuePrefix: prefix,
  modelId: 'bench:fake',
});
try {
  const url = await server.listen();
  console.log(`${TURNS} turns per face, one at a time (after ${WARMUP} warm-ups), 1 worker in process, Postgres store`);
  for (const [face, turn] of Object.entries(FACES)) {
    for (let index = 0; index < WARMUP; index++) await turn(url, index);
    const times: number[] = [];
    for (let index = 0; index < TURNS; index++) {
      const started = performance.now();
      await turn(url, index);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    console.log(`${face.padEnd(18)} min ${(times[0] as number).toFixed(1)} ms   median ${median.toFixed(1)} ms`);
  }
  console.log(
    `load average ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await server.shutdown();
  await worker.close();
  await store.close();
  await dropAll();
}
