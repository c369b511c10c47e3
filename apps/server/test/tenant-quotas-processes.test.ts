// Tenant quotas across real OS processes: two `bridle-server` processes (src/bin.ts) and a queue worker
// process on one Redis count into the same per-tenant counters; without Redis, two server processes on one
// SQLite file (or one Postgres schema) count in the store. Nothing here shares memory with the servers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeOpenAIServer } from '@bridle/testing';
import { afterEach, expect, it } from 'vitest';
import { tempStoreUrl } from './durable-helpers';
import { json, postJson } from './helpers';
import { type ServerProcess, startServerProcess } from './server-processes';
import { dropPrefix, dropSchema, newPrefix, newSchemaStoreUrl, REDIS_URL, serviceSuite, startWorker } from './services';
import { bearer, KEYS, type TestKey, writeKeysFile } from './tenant-helpers';

const suite = await serviceSuite('tenant quotas across server processes (Redis, Postgres)');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error) => console.error(error));
});

/** A third tenant, limited only in its requests. */
const INITECH: TestKey = {
  name: 'initech-app',
  tenant: 'initech',
  scopes: ['chat', 'runs:read'],
  secret: 'initech-secret-0123456789',
};

function serverProcess(env: Record<string, string>): ServerProcess {
  const server = startServerProcess(env);
  cleanups.push(server.stop);
  return server;
}

/** Polls `check` every 100 ms for up to 20 s. */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out waiting');
}

/** The next UTC midnight, as `resetsAt` names it. */
const nextMidnight = () => new Date(Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000).toISOString();

/** `GET /api/usage` of `key` on `url`. */
async function usageOf(url: string, key: TestKey) {
  const response = await fetch(`${url}/api/usage`, { headers: bearer(key) });
  expect(response.status).toBe(200);
  return json(response);
}

suite('tenant quotas across server processes', { timeout: 120_000 }, () => {
  it('two server processes and a worker on one Redis: what A and the worker spend, B refuses (429, Retry-After); usage agrees on both; other tenants run on', async () => {
    const prefix = newPrefix();
    const { schema, url: storeUrl } = newSchemaStoreUrl();
    cleanups.push(() => dropSchema(schema));
    cleanups.push(() => dropPrefix(prefix));
    const keysFile = writeKeysFile([KEYS.acme, KEYS.globex, INITECH], {
      acme: { tokensPerDay: 1500 },
      initech: { requestsPerMinute: 3 },
    });
    const worker = startWorker(prefix, storeUrl);
    cleanups.push(async () => {
      worker.child.kill('SIGTERM');
      await worker.exited;
    });
    const env = {
      BRIDLE_STORE: storeUrl,
      BRIDLE_REDIS_URL: REDIS_URL,
      BRIDLE_QUEUE_PREFIX: prefix,
      BRIDLE_MODEL: 'test:echo',
      BRIDLE_API_KEYS_FILE: keysFile,
      BRIDLE_RECOVER: '0',
    };
    // Both servers start at once on a new schema (each migrates it).
    const a = serverProcess(env);
    const b = serverProcess(env);
    const [urlA, urlB] = await Promise.all([a.url, b.url, worker.ready]);

    // Globex runs through B, on the worker: 7 tokens.
    const hello = await postJson(`${urlB}/api/chat`, { prompt: 'hello' }, bearer(KEYS.globex));
    expect(hello.body).toMatchObject({ status: 'completed', answer: `${worker.child.pid} heard 1: hello` });

    // Acme spends its day through A: the worker runs the `ticking` skill (1000 tokens a call) and stops the
    // run before the call that would pass 1500 tokens.
    const spent = await postJson(
      `${urlA}/api/chat`,
      { prompt: 'tick', skill: 'ticking', maxSteps: 10 },
      bearer(KEYS.acme),
    );
    expect(spent.status).toBe(200);
    expect(spent.body.status).toBe('budget_limit');
    expect(spent.body.error).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(1500 tokens; \d+ used today, the next call an estimated \d+\); stopped before model call \d+\.$/,
    );
    const acmeTokens = spent.body.usage.inputTokens + spent.body.usage.outputTokens;
    expect(acmeTokens).toBeGreaterThanOrEqual(1000);
    expect(acmeTokens % 1000).toBe(0);

    // B refuses acme's next run, on its own reading of the shared counters.
    for (const [path, body] of [
      ['/api/chat', { prompt: 'more' }],
      ['/api/batch', { items: [{ prompt: 'more' }] }],
    ] as const) {
      const refused = await postJson(`${urlB}${path}`, body, bearer(KEYS.acme));
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('quota_exceeded');
      expect(refused.body.error.message).toMatch(
        new RegExp(
          `^Tenant acme reached its quota tokensPerDay \\(1500 tokens; ${acmeTokens} used today\\): no new run starts until the UTC day ends, in \\d+ s\\.$`,
        ),
      );
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
    }

    // Both servers report the same totals, for each tenant.
    const midnight = nextMidnight();
    const [acmeA, acmeB] = [await usageOf(urlA, KEYS.acme), await usageOf(urlB, KEYS.acme)];
    // The day ends at the same UTC midnight for both (unless the day turned over meanwhile).
    if (nextMidnight() === midnight) expect(acmeA.day.resetsAt).toBe(midnight);
    expect(acmeA.day).toEqual(acmeB.day);
    expect(acmeA).toMatchObject({ tenant: 'acme', day: { tokens: acmeTokens }, limits: { tokensPerDay: 1500 } });
    expect(acmeB).toMatchObject({ tenant: 'acme', day: { tokens: acmeTokens }, limits: { tokensPerDay: 1500 } });

    // Globex is unaffected: it runs again, through A, and both servers count its 14 tokens.
    const again = await postJson(`${urlA}/api/chat`, { prompt: 'again' }, bearer(KEYS.globex));
    expect(again.body).toMatchObject({ status: 'completed', answer: `${worker.child.pid} heard 1: again` });
    expect((await usageOf(urlA, KEYS.globex)).day.tokens).toBe(14);
    expect((await usageOf(urlB, KEYS.globex)).day.tokens).toBe(14);

    // requestsPerMinute counts every request once for both processes: the 4th of the minute is refused.
    const minute = Math.floor(Date.now() / 60_000);
    const statuses: number[] = [];
    for (const url of [urlA, urlB, urlA, urlB])
      statuses.push((await fetch(`${url}/api/runs`, { headers: bearer(INITECH) })).status);
    // (Unless the minute turned over meanwhile: Redis and this process share one machine's clock.)
    if (Math.floor(Date.now() / 60_000) === minute) expect(statuses).toEqual([200, 200, 200, 429]);
    else expect(statuses.slice(0, 3)).not.toContain(429);
    // Acme's other quota is untouched by initech's minute: its reads still pass.
    expect((await fetch(`${urlB}/api/runs`, { headers: bearer(KEYS.acme) })).status).toBe(200);
  });

  it("on one Redis: a run under way on the worker (through A) ends budget_limit at its next call once B's run spent the day", async () => {
    const prefix = newPrefix();
    const { schema, url: storeUrl } = newSchemaStoreUrl();
    cleanups.push(() => dropSchema(schema));
    cleanups.push(() => dropPrefix(prefix));
    const keysFile = writeKeysFile([KEYS.acme], { acme: { tokensPerDay: 1500 } });
    const worker = startWorker(prefix, storeUrl);
    cleanups.push(async () => {
      worker.child.kill('SIGTERM');
      await worker.exited;
    });
    const env = {
      BRIDLE_STORE: storeUrl,
      BRIDLE_REDIS_URL: REDIS_URL,
      BRIDLE_QUEUE_PREFIX: prefix,
      BRIDLE_MODEL: 'test:echo',
      BRIDLE_API_KEYS_FILE: keysFile,
      BRIDLE_RECOVER: '0',
    };
    const a = serverProcess(env);
    const b = serverProcess(env);
    const [urlA, urlB] = await Promise.all([a.url, b.url, worker.ready]);
    // Skill `held`: the run's first call waits for this file (the worker prints `held <path>` meanwhile).
    const gate = join(mkdtempSync(join(tmpdir(), 'bridle-quota-gate-')), 'go');
    cleanups.push(async () => writeFileSync(gate, ''));
    const runA = postJson(`${urlA}/api/chat`, { prompt: gate, skill: 'held', maxSteps: 10 }, bearer(KEYS.acme));
    await waitFor(async () => worker.output().includes(`held ${gate}`));
    // The worker's other slot runs B's request, which spends the day (and stops at the quota itself).
    const runB = await postJson(
      `${urlB}/api/chat`,
      { prompt: 'spend', skill: 'ticking', maxSteps: 10 },
      bearer(KEYS.acme),
    );
    expect(runB.body.status).toBe('budget_limit');
    expect(runB.body.usage.inputTokens).toBeGreaterThanOrEqual(1000);
    writeFileSync(gate, '');
    // Alone, A's run would make a second call (1000 tokens and an estimate fit in 1500): B's spending, in the
    // counters both share, stops it there.
    const { body } = await runA;
    expect(body).toMatchObject({ status: 'budget_limit', steps: 1, usage: { inputTokens: 1000 } });
    expect(body.error).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(1500 tokens; \d+ used today, the next call an estimated \d+\); stopped before model call 2\.$/,
    );
    const total = 1000 + runB.body.usage.inputTokens;
    expect((await usageOf(urlA, KEYS.acme)).day.tokens).toBe(total);
    expect((await usageOf(urlB, KEYS.acme)).day.tokens).toBe(total);
  });

  const stores = [
    ['one SQLite file', async () => tempStoreUrl()],
    [
      'one Postgres schema',
      async () => {
        const { schema, url } = newSchemaStoreUrl();
        cleanups.push(() => dropSchema(schema));
        return url;
      },
    ],
  ] as const;

  it.each(stores)(
    'without Redis, two server processes on %s count in the store: what A spends, B refuses',
    async (_name, storeOf) => {
      const store = await storeOf();
      // The provider: every call asks for the clock again and uses 1000 tokens.
      let calls = 0;
      const provider = await fakeOpenAIServer(() => ({
        content: '',
        toolCalls: [{ id: `c${++calls}`, name: 'clock', arguments: {} }],
        usage: { inputTokens: 1000, outputTokens: 0 },
      }));
      cleanups.push(() => provider.close());
      const keysFile = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { tokensPerDay: 1500 } });
      const env = {
        BRIDLE_STORE: store,
        BRIDLE_MODEL: 'openai:fake-model',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: provider.baseURL,
        BRIDLE_API_KEYS_FILE: keysFile,
        BRIDLE_RECOVER: '0',
      };
      const a = serverProcess(env);
      const b = serverProcess(env);
      const [urlA, urlB] = await Promise.all([a.url, b.url]);

      const run = await postJson(`${urlA}/api/chat`, { prompt: 'what time is it', maxSteps: 10 }, bearer(KEYS.acme));
      expect(run.body).toMatchObject({ status: 'budget_limit', steps: 2 });
      expect(run.body.error).toMatch(
        /^Tenant acme reached its quota tokensPerDay \(1500 tokens; 2000 used today, the next call an estimated \d+\); stopped before model call 3\.$/,
      );

      const refused = await postJson(`${urlB}/api/chat`, { prompt: 'again' }, bearer(KEYS.acme));
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('quota_exceeded');
      expect(refused.body.error.message).toMatch(
        /^Tenant acme reached its quota tokensPerDay \(1500 tokens; 2000 used today\): no new run starts until the UTC day ends, in \d+ s\.$/,
      );
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      const midnight = nextMidnight();
      const [acmeA, acmeB] = [await usageOf(urlA, KEYS.acme), await usageOf(urlB, KEYS.acme)];
      if (nextMidnight() === midnight) expect(acmeA.day.resetsAt).toBe(midnight);
      expect(acmeA.day).toEqual(acmeB.day);
      expect(acmeB).toMatchObject({ tenant: 'acme', day: { tokens: 2000 }, limits: { tokensPerDay: 1500 } });

      // Globex runs on through B (until its maxSteps), counted where A reads it too.
      const other = await postJson(`${urlB}/api/chat`, { prompt: 'go', maxSteps: 3 }, bearer(KEYS.globex));
      expect(other.body).toMatchObject({ status: 'step_limit', steps: 3 });
      expect((await usageOf(urlA, KEYS.globex)).day.tokens).toBe(3000);
      expect((await usageOf(urlB, KEYS.globex)).day.tokens).toBe(3000);
    },
  );

  it.each(stores)(
    'without Redis, on %s: a run of A under way ends budget_limit at its next call once B spent the day',
    async (_name, storeOf) => {
      const store = await storeOf();
      // A's first call waits (the test releases it); every call asks for the clock again and uses 1000 tokens.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let heldStarted!: () => void;
      const held = new Promise<void>((resolve) => {
        heldStarted = resolve;
      });
      let calls = 0;
      let holding = true;
      const provider = await fakeOpenAIServer(async (request) => {
        if (holding && JSON.stringify(request.body).includes('held by A')) {
          holding = false;
          heldStarted();
          await released;
        }
        return {
          content: '',
          toolCalls: [{ id: `c${++calls}`, name: 'clock', arguments: {} }],
          usage: { inputTokens: 1000, outputTokens: 0 },
        };
      });
      cleanups.push(() => provider.close());
      // A held call must not keep the provider open when the test fails before releasing it.
      cleanups.push(async () => release());
      const keysFile = writeKeysFile([KEYS.acme], { acme: { tokensPerDay: 1500 } });
      const env = {
        BRIDLE_STORE: store,
        BRIDLE_MODEL: 'openai:fake-model',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: provider.baseURL,
        BRIDLE_API_KEYS_FILE: keysFile,
        BRIDLE_RECOVER: '0',
      };
      const a = serverProcess(env);
      const b = serverProcess(env);
      const [urlA, urlB] = await Promise.all([a.url, b.url]);

      const runA = postJson(`${urlA}/api/chat`, { prompt: 'held by A', maxSteps: 10 }, bearer(KEYS.acme));
      await held;
      // While A's first call is under way, B's run spends the day (and stops at the quota itself).
      const runB = await postJson(`${urlB}/api/chat`, { prompt: 'spent by B', maxSteps: 10 }, bearer(KEYS.acme));
      expect(runB.body.status).toBe('budget_limit');
      expect(runB.body.usage.inputTokens).toBeGreaterThanOrEqual(1000);
      release();
      // Alone, A would have made a second call (see above: 1000 tokens and an estimate fit in 1500); B's
      // spending, counted in the shared store, stops it there.
      const { body } = await runA;
      expect(body).toMatchObject({ status: 'budget_limit', steps: 1, usage: { inputTokens: 1000 } });
      expect(body.error).toMatch(
        /^Tenant acme reached its quota tokensPerDay \(1500 tokens; \d+ used today, the next call an estimated \d+\); stopped before model call 2\.$/,
      );
      const total = 1000 + runB.body.usage.inputTokens;
      expect((await usageOf(urlA, KEYS.acme)).day.tokens).toBe(total);
      expect((await usageOf(urlB, KEYS.acme)).day.tokens).toBe(total);
    },
  );
});
