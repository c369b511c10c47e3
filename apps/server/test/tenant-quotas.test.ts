import { MemoryQuotaLedger } from '@bridle/core';
import type { Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { tempStoreUrl } from './durable-helpers';
import { gatedModel, json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

/** A tool that counts its calls. */
const tick: Tool<Record<string, never>, string> = {
  name: 'tick',
  description: 'Ticks',
  parameters: { type: 'object', properties: {} },
  execute: () => 'ticked',
};

/** A model that calls `tick` for ever, each call using `tokens` input tokens and costing `costUsd`. */
function tickingModel(tokens: number, costUsd?: number) {
  let call = 0;
  return scriptedModel(() => ({
    content: '',
    toolCalls: [{ id: `t${++call}`, name: 'tick', arguments: {} }],
    usage: { inputTokens: tokens, outputTokens: 0, ...(costUsd === undefined ? {} : { costUsd }) },
  }));
}

describe('tenant quotas', () => {
  it('tokensPerDay: a running run ends budget_limit naming the quota; new runs are 429 with Retry-After; the other tenant runs on', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { tokensPerDay: 150 } });
    const server = await startTestServer({
      model: tickingModel(100),
      skills: [],
      tools: [tick],
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const first = await postJson(`${server.url}/api/chat`, { prompt: 'go', maxSteps: 10 }, bearer(KEYS.acme));
    expect(first.body).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect(first.body.error).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(150 tokens; 200 used today, the next call an estimated \d+\); stopped before model call 3\.$/,
    );
    const refused = await postJson(`${server.url}/api/chat`, { prompt: 'again' }, bearer(KEYS.acme));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect(refused.body.error.message).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(150 tokens; 200 used today\): no new run starts until the UTC day ends, in \d+ s\.$/,
    );
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Reading is not starting a run.
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status).toBe(200);
    const usage = await json(await fetch(`${server.url}/api/usage`, { headers: bearer(KEYS.acme) }));
    expect(usage).toMatchObject({
      tenant: 'acme',
      key: 'acme-app',
      day: { tokens: 200, costUsd: 0 },
      limits: { tokensPerDay: 150 },
    });
    // Another tenant has its own day.
    const other = await postJson(`${server.url}/api/chat`, { prompt: 'go', maxSteps: 3 }, bearer(KEYS.globex));
    expect(other.body).toMatchObject({ status: 'step_limit', steps: 3 });
    expect((await json(await fetch(`${server.url}/api/usage`, { headers: bearer(KEYS.globex) }))).day.tokens).toBe(300);
  });

  it('costUsdPerRun stops a run before the call that would pass it; costUsdPerDay refuses the next run', async () => {
    // $0.0001 a token: the estimate of a short call is well under a call's $0.1.
    const file = writeKeysFile([KEYS.acme], { acme: { costUsdPerRun: 0.25, costUsdPerDay: 0.5 } });
    const server = await startTestServer({
      model: tickingModel(1000, 0.1),
      skills: [],
      tools: [tick],
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const run = await postJson(`${server.url}/api/chat`, { prompt: 'go', maxSteps: 10 }, bearer(KEYS.acme));
    expect(run.body.status).toBe('budget_limit');
    expect(run.body.error).toMatch(
      /^The run cost \$0\.3 \(and its next call an estimated \$0\.\d+\), reaching tenant acme's quota costUsdPerRun \(\$0\.25\); stopped before model call 4\.$/,
    );
    const next = await postJson(`${server.url}/api/chat`, { prompt: 'go', maxSteps: 10 }, bearer(KEYS.acme));
    expect(next.body.status).toBe('budget_limit');
    expect(next.body).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect(next.body.error).toMatch(
      /^Tenant acme reached its quota costUsdPerDay \(\$0\.5; \$0\.5 used today\); stopped before model call 3\.$/,
    );
    const refused = await postJson(`${server.url}/api/chat`, { prompt: 'go' }, bearer(KEYS.acme));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('costUsdPerDay ($0.5; $0.5 used today)');
  });

  it('requestsPerMinute: every request counts; beyond, 429 with Retry-After until the minute ends', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { requestsPerMinute: 3 } });
    const server = await startTestServer({
      model: tickingModel(1),
      skills: [],
      tools: [tick],
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++)
      statuses.push((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status);
    // Unless the minute turned over between the requests (then the fourth passes).
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    if (statuses[3] === 429) {
      const refused = await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) });
      expect(refused.status).toBe(429);
      const seconds = Number(refused.headers.get('retry-after'));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      expect((await json(refused)).error.message).toMatch(
        /^Tenant acme reached its quota requestsPerMinute \(3\): retry in \d+ s\.$/,
      );
    }
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) })).status).toBe(200);
  });

  it('a quota reached in the middle of a batch: the items after it end budget_limit', async () => {
    const file = writeKeysFile([KEYS.acme], { acme: { tokensPerDay: 250 } });
    const model = scriptedModel(() => ({ content: 'done', usage: { inputTokens: 100, outputTokens: 0 } }));
    const server = await startTestServer({
      model,
      skills: [],
      env: { BRIDLE_API_KEYS_FILE: file },
      batchConcurrency: 1,
    });
    const items = Array.from({ length: 5 }, (_, index) => ({ prompt: `item ${index}` }));
    const started = await postJson(`${server.url}/api/batch`, { items }, bearer(KEYS.acme));
    expect(started.status).toBe(202);
    let view = started.body;
    for (let tries = 0; view.status === 'running' && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      view = await json(await fetch(`${server.url}/api/batch/${started.body.id}`, { headers: bearer(KEYS.acme) }));
    }
    const statuses = view.results.map((result: { status: string }) => result.status);
    expect(statuses).toEqual(['completed', 'completed', 'completed', 'budget_limit', 'budget_limit']);
    expect(view.results[3].error).toContain('Tenant acme reached its quota tokensPerDay');
  });
});

describe('MemoryQuotaLedger: daily windows follow the clock it is given', () => {
  it('a day ends at UTC midnight; a clock set back or forward counts in its own day', async () => {
    let now = Date.UTC(2026, 11, 7, 23, 59, 0);
    const ledger = new MemoryQuotaLedger({ now: () => now });
    expect(await ledger.reserve('acme', { tokens: 90, costUsd: 0 }, { tokensPerDay: 100 })).toMatchObject({
      ok: true,
      tokens: 90,
    });
    expect(await ledger.reserve('acme', { tokens: 20, costUsd: 0 }, { tokensPerDay: 100 })).toMatchObject({
      ok: false,
      quota: 'tokensPerDay',
      tokens: 90,
      resetMs: 60_000,
    });
    now += 60_000;
    expect(await ledger.reserve('acme', { tokens: 20, costUsd: 0 }, { tokensPerDay: 100 })).toMatchObject({
      ok: true,
      tokens: 20,
    });
    expect((await ledger.day('acme')).resetMs).toBe(86_400_000);
  });

  it("a tenant holds at most its share of the run slots (429); the other tenant's requests still get one", async () => {
    const gated = gatedModel();
    const file = writeKeysFile([KEYS.acme, KEYS.globex]);
    // Three slots, two per tenant.
    const server = await startTestServer({
      model: gated.model,
      skills: [],
      maxConcurrentRuns: 3,
      maxRunsPerTenant: 2,
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const running = [
      postJson(`${server.url}/api/chat`, { prompt: 'one' }, bearer(KEYS.acme)),
      postJson(`${server.url}/api/chat`, { prompt: 'two' }, bearer(KEYS.acme)),
    ];
    await gated.started;
    // Both of acme's runs hold their slots (the model waits) before the third request.
    for (let tries = 0; tries < 100; tries++) {
      const ready = await fetch(`${server.url}/ready`, { headers: bearer(KEYS.acme) });
      if ((await json(ready)).activeRuns === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const third = await postJson(`${server.url}/api/chat`, { prompt: 'three' }, bearer(KEYS.acme));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.body.error).toEqual({
      code: 'quota_exceeded',
      message: 'Tenant acme is running its maximum of 2 runs at once (BRIDLE_MAX_RUNS_PER_TENANT): retry shortly.',
      requestId: third.body.error.requestId,
    });
    const other = postJson(`${server.url}/api/chat`, { prompt: 'mine' }, bearer(KEYS.globex));
    gated.release();
    expect((await other).body).toMatchObject({ status: 'completed' });
    for (const run of running) expect((await run).body).toMatchObject({ status: 'completed' });
  });

  it('without Redis, servers on one SQLite file count into the store: what one spends, the other refuses', async () => {
    const store = await tempStoreUrl();
    const file = writeKeysFile([KEYS.acme, KEYS.globex], { acme: { tokensPerDay: 150 } });
    const options = { model: tickingModel(100), skills: [], tools: [tick], store: undefined };
    const env = { BRIDLE_STORE: store, BRIDLE_API_KEYS_FILE: file };
    const one = await startTestServer({ ...options, env });
    const two = await startTestServer({ ...options, env });
    const run = await postJson(`${one.url}/api/chat`, { prompt: 'go', maxSteps: 10 }, bearer(KEYS.acme));
    expect(run.body).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect((await json(await fetch(`${two.url}/api/usage`, { headers: bearer(KEYS.acme) }))).day.tokens).toBe(200);
    const refused = await postJson(`${two.url}/api/chat`, { prompt: 'again' }, bearer(KEYS.acme));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(150 tokens; 200 used today\)/,
    );
    expect((await json(await fetch(`${two.url}/api/usage`, { headers: bearer(KEYS.globex) }))).day.tokens).toBe(0);
  });
});
