// Ownership: a journaled segment holds the run's lease, carries its fencing token on every append, and a
// process that lost the run stops before any further tool or model call.
import type { RunEvent, Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalError, resumeRun, runAgent } from '../src/index';
import { call, deferred, tool } from './helpers';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function memoryStore(): Promise<Store> {
  const store = await openStore('memory:');
  stores.push(store);
  return store;
}

/** Blocks this thread, as a SIGSTOP or a long GC pause would: no timer or I/O callback runs meanwhile. */
function freeze(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const twoSteps = () => [
  { content: '', toolCalls: [call('c1', 'work')], finishReason: 'tool_calls' as const },
  { content: '', toolCalls: [call('c2', 'work')], finishReason: 'tool_calls' as const },
  { content: 'done', finishReason: 'stop' as const },
];

async function rejection(promise: Promise<unknown>): Promise<JournalError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!JournalError.isInstance(error)) throw new Error(`expected a JournalError, got ${String(error)}`);
  return error;
}

describe('ownership', () => {
  it('a running segment holds the lease (listRuns shows owner and leaseUntil) and gives it up when it ends', async () => {
    const store = await memoryStore();
    const inside = deferred();
    const release = deferred();
    const model = scriptedModel(twoSteps().slice(1));
    const run = runAgent({
      model,
      tools: [
        tool('work', async () => {
          inside.resolve();
          await release.promise;
          return 'ok';
        }),
      ],
      prompt: 'go',
      store,
      runId: 'owned',
      ownership: { owner: 'tester', leaseMs: 5000 },
    });
    await inside.promise;
    const [running] = await store.listRuns();
    expect(running).toMatchObject({ runId: 'owned', status: 'running', owner: 'tester' });
    expect(Date.parse(running?.leaseUntil ?? '')).toBeGreaterThan(Date.now());
    release.resolve();
    expect((await run).status).toBe('completed');
    const [ended] = await store.listRuns();
    expect(ended?.owner).toBeUndefined();
    expect(ended?.leaseUntil).toBeUndefined();
  });

  it('a process frozen past its lease, whose run another took, stops with code fenced: no further tool or model call', async () => {
    const store = await memoryStore();
    const model = scriptedModel(twoSteps());
    let runs = 0;
    const work = tool('work', async () => {
      runs += 1;
      // Frozen past the 50 ms lease; meanwhile (as another process would) someone takes the expired lease.
      freeze(150);
      const taken = await store.acquireLease?.('zombie', { owner: 'rescuer', leaseMs: 60_000 });
      expect(taken?.acquired).toBe(true);
      return 'ok';
    });
    const error = await rejection(
      runAgent({ model, tools: [work], prompt: 'go', store, runId: 'zombie', ownership: { leaseMs: 50 } }),
    );
    expect(error.code).toBe('fenced');
    expect(error.fenced).toBe(true);
    expect(error.message).toMatch(/another process owns it now/);
    expect(runs).toBe(1);
    expect(model.requests).toHaveLength(1);
    // Nothing after the takeover reached the journal: the call's tool_end was refused.
    const events = (await store.readRun('zombie'))?.events as RunEvent[];
    expect(events.map((event) => event.type)).toEqual(['run_start', 'model_start', 'model_end', 'tool_start']);
    expect((await store.listRuns())[0]?.owner).toBe('rescuer');
  });

  it('a renewal that finds the run taken over stops the run at its next write', async () => {
    const store = await memoryStore();
    const model = scriptedModel(twoSteps());
    const work = tool('work', async () => {
      await store.acquireLease?.('taken', { owner: 'thief', leaseMs: 60_000, force: true });
      // Long enough for a renewal (every leaseMs / 3) to find it.
      await new Promise((resolve) => setTimeout(resolve, 120));
      return 'ok';
    });
    const error = await rejection(
      runAgent({ model, tools: [work], prompt: 'go', store, runId: 'taken', ownership: { leaseMs: 150 } }),
    );
    expect(error.code).toBe('fenced');
    expect(model.requests).toHaveLength(1);
  });

  it('runs at once keep their leases through a wait longer than the lease (renewed), and give them up at the end', async () => {
    const store = await memoryStore();
    const waited = deferred<void>();
    let waiting = 0;
    const work = tool('work', async () => {
      // Both runs wait here together, over two leases long.
      if (++waiting === 2) setTimeout(() => waited.resolve(), 1500);
      await waited.promise;
      return 'ok';
    });
    const start = (runId: string) =>
      runAgent({
        model: scriptedModel([
          { content: '', toolCalls: [call('c1', 'work')], finishReason: 'tool_calls' },
          { content: 'done', finishReason: 'stop' },
        ]),
        tools: [work],
        prompt: 'go',
        store,
        runId,
        ownership: { leaseMs: 600 },
      });
    const runs = [start('first'), start('second')];
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const runId of ['first', 'second']) {
      expect(await store.acquireLease?.(runId, { owner: 'other', leaseMs: 1000 })).toMatchObject({ acquired: false });
    }
    expect((await Promise.all(runs)).map((result) => result.status)).toEqual(['completed', 'completed']);
    expect(await store.acquireLease?.('first', { owner: 'other', leaseMs: 1000 })).toMatchObject({ acquired: true });
  });

  it('resumeRun refuses a run whose lease another process holds, before any model call', async () => {
    const store = await memoryStore();
    const started = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'gate')], finishReason: 'tool_calls' }]),
      tools: [tool('gate', () => 'ok', { requiresApproval: true })],
      approve: () => 'ask',
      prompt: 'go',
      store,
      runId: 'paused',
    });
    expect(started.status).toBe('awaiting_approval');
    await store.acquireLease?.('paused', { owner: 'elsewhere', leaseMs: 60_000 });
    const model = scriptedModel([{ content: 'done', finishReason: 'stop' }]);
    const error = await rejection(
      resumeRun({ model, tools: [tool('gate', () => 'ok')], store, runId: 'paused', approvals: { c1: true } }),
    );
    expect(error.code).toBe('fenced');
    expect(error.message).toMatch(/owned by elsewhere until/);
    expect(model.requests).toHaveLength(0);
    expect((await store.readRun('paused'))?.status).toBe('awaiting_approval');
  });

  it('a lease given in ownership.lease (claimed orphan) is used, and one for another run is a ConfigError', async () => {
    const store = await memoryStore();
    const lease = await store.acquireLease?.('orphan', { owner: 'me', leaseMs: 60_000, force: true });
    if (!lease?.acquired) throw new Error('no lease');
    await expect(
      runAgent({
        model: scriptedModel([{ content: 'done', finishReason: 'stop' }]),
        prompt: 'go',
        store,
        runId: 'third',
        ownership: { lease: lease.lease },
      }),
    ).rejects.toThrow(/ownership.lease: it is the lease of run orphan, not of run third/);
    const result = await runAgent({
      model: scriptedModel([{ content: 'done', finishReason: 'stop' }]),
      prompt: 'go',
      store,
      runId: 'orphan',
      ownership: { lease: lease.lease },
    });
    expect(result.status).toBe('completed');
    expect((await store.readRun('orphan'))?.status).toBe('completed');
  });

  it('bad ownership options are ConfigErrors naming the option', async () => {
    const store = await memoryStore();
    const model = scriptedModel([{ content: 'done', finishReason: 'stop' }]);
    await expect(runAgent({ model, prompt: 'go', store, ownership: { leaseMs: 0 } })).rejects.toThrow(
      /ownership.leaseMs/,
    );
    await expect(runAgent({ model, prompt: 'go', store, ownership: { owner: '' } })).rejects.toThrow(/ownership.owner/);
  });
});
