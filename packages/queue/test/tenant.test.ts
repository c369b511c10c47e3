import type { ModelRequest } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, RedisQuotaLedger, type RunWorker, startRunWorker } from '../src/index';
import { testAgent, twoStepModel } from './agents';
import { dropPrefix, newPrefix, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('queue tenant tests (Redis)', {});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

suite('@bridle/queue: a job of a tenant', () => {
  it("journals the job's tenant and key name in its run_start, and saves a new session under the tenant", async () => {
    const prefix = newPrefix();
    const store = await openStore('memory:');
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    const workers: RunWorker[] = [];
    cleanups.push(async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await queue.close();
      await store.close();
      await dropPrefix(prefix);
    });
    workers.push(await startRunWorker({ redis: REDIS_URL, prefix, store, agent: testAgent(twoStepModel()) }));
    const spec = { prompt: 'hello', model: 'test:two-step', sessionId: 's-acme', tenant: 'acme', by: 'acme-app' };
    await queue.enqueue({ ...spec, runId: 'run-acme' });
    expect((await queue.settled('run-acme')).state).toBe('completed');
    const start = (await store.readRun('run-acme'))?.events[0];
    expect(start).toMatchObject({ type: 'run_start', tenant: 'acme', by: 'acme-app', sessionId: 's-acme' });
    expect((await store.listRuns({ tenant: 'acme' })).map((run) => run.runId)).toEqual(['run-acme']);
    expect((await store.listRuns({ tenant: 'default' })).map((run) => run.runId)).toEqual([]);
    expect((await store.getSession('s-acme'))?.tenant).toBe('acme');

    await expect(queue.enqueue({ ...spec, tenant: '../x' })).rejects.toThrow(
      "Invalid run job: tenant must be 1 to 64 letters, digits, '.', '_', ':' or '-', got \"../x\".",
    );
    await expect(queue.enqueue({ ...spec, by: 7 as never })).rejects.toThrow('Invalid run job: by must be');
  });
});

suite('@bridle/queue: a job with its tenant quotas', () => {
  it("checks each model call against the tenant's day in the counters the servers share; the worker's own gate holds too", async () => {
    const prefix = newPrefix();
    const store = await openStore('memory:');
    const queue = await openRunQueue({ redis: REDIS_URL, prefix });
    const ledger = await RedisQuotaLedger.open(REDIS_URL, prefix);
    const workers: RunWorker[] = [];
    cleanups.push(async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await ledger.close();
      await queue.close();
      await store.close();
      await dropPrefix(prefix);
    });
    // The worker's own gate refuses runs of tenant `blocked`; every other call it lets through.
    const asked: string[] = [];
    // Each call uses 10 tokens.
    const base = twoStepModel();
    const counting = {
      id: base.id,
      generate: async (request: ModelRequest) => ({
        ...(await base.generate(request)),
        usage: { inputTokens: 6, outputTokens: 4 },
      }),
    };
    const agent = testAgent(counting);
    workers.push(
      await startRunWorker({
        redis: REDIS_URL,
        prefix,
        store,
        agent: async (job) => ({
          ...(await agent(job)),
          budget: {
            gate: {
              reserve: () => {
                asked.push(job.runId);
                return job.tenant === 'blocked' ? { stop: 'the worker refuses tenant blocked' } : { settle: () => {} };
              },
            },
          },
        }),
      }),
    );
    const spec = { prompt: 'hello', model: 'test:two-step' };
    // No limits: the tenant's use is counted all the same (what GET /api/usage shows).
    await queue.enqueue({ ...spec, runId: 'counted', tenant: 'acme', quotas: {} });
    expect((await queue.settled('counted')).result?.status).toBe('completed');
    expect((await ledger.day('acme')).tokens).toBe(20);
    // A day used up (by another process) stops the run before its first call, naming the quota.
    await ledger.add('acme', { tokens: 80, costUsd: 0 });
    await queue.enqueue({ ...spec, runId: 'refused', tenant: 'acme', quotas: { tokensPerDay: 100 } });
    const refused = (await queue.settled('refused')).result;
    expect(refused?.status).toBe('budget_limit');
    expect(refused?.error).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(100 tokens; 100 used today, the next call an estimated \d+\); stopped before model call 1\.$/,
    );
    // Another tenant's day is its own; a job without quotas is not counted.
    await queue.enqueue({ ...spec, runId: 'other', tenant: 'globex', quotas: { tokensPerDay: 100 } });
    expect((await queue.settled('other')).result?.status).toBe('completed');
    expect((await ledger.day('globex')).tokens).toBe(20);
    await queue.enqueue({ ...spec, runId: 'uncounted', tenant: 'initech' });
    expect((await queue.settled('uncounted')).result?.status).toBe('completed');
    expect((await ledger.day('initech')).tokens).toBe(0);
    // The worker's gate is asked first; its refusal stands.
    await queue.enqueue({ ...spec, runId: 'blocked', tenant: 'blocked', quotas: {} });
    const blocked = (await queue.settled('blocked')).result;
    expect(blocked?.error).toBe('the worker refuses tenant blocked');
    expect(asked).toContain('refused');
    expect(await ledger.day('blocked')).toMatchObject({ tokens: 0 });

    await expect(queue.enqueue({ ...spec, quotas: { tokensPerDay: -1 } })).rejects.toThrow(
      'Invalid run job: quotas must be an object of tokensPerDay, costUsdPerDay, costUsdPerRun (non-negative numbers), got',
    );
    await expect(queue.enqueue({ ...spec, quotas: { requestsPerMinute: 5 } as never })).rejects.toThrow(
      'Invalid run job: quotas must be',
    );
  });
});
