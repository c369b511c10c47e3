import type { RunEvent } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ServerOptions } from '../src/index';
import { json, postJson, startTestServer } from './helpers';
import {
  dropPrefix,
  dropSchema,
  newPrefix,
  newSchemaStoreUrl,
  REDIS_URL,
  serviceSuite,
  startWorker,
  type WorkerProcess,
} from './services';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const suite = await serviceSuite('tenant quotas on queue workers (Redis, Postgres)');

/** Polls `check` every 100 ms for up to 20 s. */
async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out waiting');
}

// One worker process (concurrency 2) and two servers on one Redis and one Postgres schema: the servers
// check requests, the worker checks each model call, and all count into the same per-tenant counters.
suite('tenant quotas across two servers and a queue worker', { timeout: 90_000 }, () => {
  const prefix = newPrefix();
  const { schema, url: storeUrl } = newSchemaStoreUrl();
  const keysFile = writeKeysFile([KEYS.acme, KEYS.acmeReader, KEYS.globex], { acme: { tokensPerDay: 1500 } });
  let worker: WorkerProcess;
  const options = (file = keysFile): ServerOptions => ({
    store: storeUrl,
    redis: REDIS_URL,
    queuePrefix: prefix,
    modelId: 'test:echo',
    env: { BRIDLE_API_KEYS_FILE: file },
  });

  beforeAll(async () => {
    worker = startWorker(prefix, storeUrl);
    await worker.ready;
  }, 120_000);

  afterAll(async () => {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await dropPrefix(prefix);
    await dropSchema(schema);
  }, 60_000);

  it("two tenants' runs on one worker: each journal names its tenant and key, and their use is counted apart", async () => {
    const one = await startTestServer(options());
    const two = await startTestServer(options());
    const [acme, globex] = await Promise.all([
      postJson(`${one.url}/api/chat`, { prompt: 'from acme' }, bearer(KEYS.acme)),
      postJson(`${two.url}/api/chat`, { prompt: 'from globex' }, bearer(KEYS.globex)),
    ]);
    expect(acme.body).toMatchObject({ status: 'completed', usage: { inputTokens: 3, outputTokens: 4 } });
    expect(globex.body).toMatchObject({ status: 'completed', usage: { inputTokens: 3, outputTokens: 4 } });
    const pid = String(worker.child.pid);
    expect(acme.body.answer).toBe(`${pid} heard 1: from acme`);
    expect(globex.body.answer).toBe(`${pid} heard 1: from globex`);
    const store = await openStore(storeUrl);
    try {
      const startOf = async (runId: string) =>
        ((await store.readRun(runId))?.events ?? []).find((event: RunEvent) => event.type === 'run_start');
      expect(await startOf(acme.body.runId)).toMatchObject({ tenant: 'acme', by: 'acme-app' });
      expect(await startOf(globex.body.runId)).toMatchObject({ tenant: 'globex', by: 'globex-app' });
    } finally {
      await store.close();
    }
    // The worker counted each run's real use (7 tokens) into its tenant's day, where either server reads it.
    expect((await json(await fetch(`${two.url}/api/usage`, { headers: bearer(KEYS.acme) }))).day.tokens).toBe(7);
    expect((await json(await fetch(`${one.url}/api/usage`, { headers: bearer(KEYS.globex) }))).day.tokens).toBe(7);
    // Neither tenant sees the other's run, on either server.
    expect((await fetch(`${two.url}/api/runs/${acme.body.runId}`, { headers: bearer(KEYS.globex) })).status).toBe(404);
  });

  it('a quota reached in the middle of a batch: the running runs end budget_limit naming it, the rest are refused', async () => {
    const one = await startTestServer(options());
    const two = await startTestServer(options());
    // Each `ticking` call uses 1000 tokens, and acme may use 1500 a day: the worker lets the first calls
    // through (two items run at once), then refuses every later call before it is made.
    const started = await postJson(
      `${one.url}/api/batch`,
      { skill: 'ticking', maxSteps: 10, items: [{ prompt: 'a' }, { prompt: 'b' }, { prompt: 'c' }] },
      bearer(KEYS.acme),
    );
    expect(started.status).toBe(202);
    let job = started.body;
    await waitFor(async () => {
      job = await json(await fetch(`${one.url}/api/batch/${started.body.id}`, { headers: bearer(KEYS.acme) }));
      return job.status !== 'running';
    });
    expect(job.progress).toMatchObject({ total: 3, done: 3, succeeded: 0 });
    const results = [...job.results].sort((a, b) => a.index - b.index);
    for (const result of results) {
      expect(result.status).toBe('budget_limit');
      expect(result.error).toMatch(
        /^Tenant acme reached its quota tokensPerDay \(1500 tokens; \d+ used today, the next call an estimated \d+\); stopped before model call \d+\.$/,
      );
    }
    // The third item waited for a free slot of the worker: by then the day was used up, so it made no call.
    expect(results.some((result) => result.error.endsWith('stopped before model call 1.'))).toBe(true);
    const usage = await json(await fetch(`${two.url}/api/usage`, { headers: bearer(KEYS.acme) }));
    expect(usage.day.tokens).toBeGreaterThanOrEqual(1500);
    expect(usage.limits).toEqual({ tokensPerDay: 1500 });
    // New runs of the tenant are refused on every server, with Retry-After; another tenant runs on.
    for (const [server, path, body] of [
      [two, '/api/chat', { prompt: 'more' }],
      [one, '/api/batch', { items: [{ prompt: 'more' }] }],
    ] as const) {
      const refused = await postJson(`${server.url}${path}`, body, bearer(KEYS.acme));
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('quota_exceeded');
      expect(refused.body.error.message).toMatch(/^Tenant acme reached its quota tokensPerDay \(1500 tokens; \d+ used/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const other = await postJson(`${two.url}/api/chat`, { prompt: 'still here' }, bearer(KEYS.globex));
    expect(other.body).toMatchObject({ status: 'completed' });
  });

  it('a key revoked while it follows a queued run: the stream ends, the run goes on for its tenant', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.acmeReader, KEYS.globex]);
    const server = await startTestServer(options(file));
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...bearer(KEYS.acme) },
      // `slow`: the worker's model call takes 3 s, time enough to revoke the key while it runs.
      body: JSON.stringify({ prompt: 'keep going', skill: 'slow' }),
    });
    expect(response.status).toBe(200);
    const sessionId = response.headers.get('x-session-id') as string;
    // The stream opened at the run's first event on the worker (its run_start stays server-side): the key
    // is revoked while the model call runs.
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    writeKeysFile([KEYS.acmeReader, KEYS.globex], {}, file);
    // The stream ends (within the keys file's reload), without its run_end.
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).not.toContain('run_end');
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status).toBe(401);
    // The run went on in its worker, for acme: its other key sees it complete, and the session holds the answer.
    const other = bearer(KEYS.acmeReader);
    const runsOfSession = async () =>
      (await json(await fetch(`${server.url}/api/runs?sessionId=${sessionId}`, { headers: other }))).runs;
    await waitFor(async () => (await runsOfSession())[0]?.status === 'completed');
    const [run] = await runsOfSession();
    const session = await json(await fetch(`${server.url}/api/sessions/${sessionId}`, { headers: other }));
    expect(session.messages.at(-1).content).toBe(`${worker.child.pid} heard 1: keep going`);
    expect((await fetch(`${server.url}/api/runs/${run.runId}`, { headers: bearer(KEYS.globex) })).status).toBe(404);
  });
});
