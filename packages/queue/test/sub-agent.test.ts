// A worker's run whose sub-agent (agentTool) needs a decision: the job ends awaiting_approval with the
// inner call (and the sub-agent's runId) pending; an approvals job on the parent resumes both runs.
import { agentTool } from '@bridle/core';
import type { ModelRequest, ModelResponse, RunEvent, Store, Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type RunWorker, startRunWorker } from '../src/index';
import { addTool, testAgent, twoStepModel } from './agents';
import { type Child, startChild } from './child';
import { dropPrefix, dropSchema, newPrefix, newSchema, openSchemaStore, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('sub-agent tests (Redis)', {});
const scaleOut = await serviceSuite('sub-agent worker tests (Redis and Postgres)', { postgres: true });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The parent: step 1 delegates the prompt to `helper`, step 2 answers `parent: <its result>`. */
function delegatingModel() {
  return {
    id: 'test:two-step',
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') return { content: `parent: ${last.content}` };
      const prompt = last?.role === 'user' ? last.content : '';
      return { content: '', toolCalls: [{ id: 'd1', name: 'helper', arguments: { prompt } }] };
    },
  };
}

suite('@bridle/queue: a sub-agent waiting for approval', () => {
  it('pauses the job; an approvals job on the parent resumes the sub-agent where it stopped', async () => {
    const prefix = newPrefix();
    const store = await openStore('memory:');
    const queue = await openRunQueue({ redis: REDIS_URL, prefix, backoffMs: 50 });
    const executed: unknown[] = [];
    const guarded: Tool = {
      ...addTool,
      requiresApproval: true,
      execute: (args) => {
        executed.push(args);
        return addTool.execute(args, {} as never);
      },
    };
    const child = twoStepModel();
    const helper = agentTool({ model: child, tools: [guarded] }, { name: 'helper', description: 'Adds' });
    const parent = delegatingModel();
    const worker: RunWorker = await startRunWorker({
      redis: REDIS_URL,
      prefix,
      store,
      agent: (job) => ({ ...testAgent(parent)(job), tools: [helper], approve: () => 'ask' as const }),
    });
    cleanups.push(async () => {
      await worker.close();
      await queue.close();
      await store.close();
      await dropPrefix(prefix);
    });

    await queue.enqueue({ prompt: 'sum', model: parent.id, runId: 'sub-1' });
    const paused = await queue.settled('sub-1');
    const childRunId = (paused.result as { pendingApprovals?: { runId?: string }[] }).pendingApprovals?.[0]?.runId;
    expect(paused.result).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'c1', name: 'add', arguments: { a: 2, b: 3 }, runId: childRunId }],
    });
    expect(childRunId).toEqual(expect.any(String));
    expect((await store.readRun(childRunId as string))?.status).toBe('awaiting_approval');
    expect(executed).toEqual([]);

    const fromSequence = ((await store.readRun('sub-1'))?.events.at(-1)?.sequence ?? 0) + 1;
    const decided = await queue.enqueue({ model: parent.id, runId: 'sub-1', approvals: { c1: true } });
    const followed: RunEvent[] = [];
    for await (const event of queue.follow('sub-1', { jobId: decided.jobId, fromSequence })) followed.push(event);
    const job = await queue.settled(decided.jobId);
    expect(job.result).toMatchObject({ status: 'completed', answer: 'parent: answer: sum', steps: 2, toolCalls: 1 });
    expect(executed).toEqual([{ a: 2, b: 3 }]);
    expect(followed.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', runId: 'sub-1' });
    for (const runId of ['sub-1', childRunId as string]) expect((await store.readRun(runId))?.status).toBe('completed');
  });
});

/** Worker processes of test/fixtures/sub-agent-worker.ts on one queue and one Postgres schema. */
async function workerSetup() {
  const prefix = newPrefix();
  const schema = newSchema();
  const store = await openSchemaStore(schema);
  const queue = await openRunQueue({ redis: REDIS_URL, prefix, backoffMs: 200 });
  const children: Child[] = [];
  cleanups.push(async () => {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await queue.close();
    await store.close();
    await dropSchema(schema);
    await dropPrefix(prefix);
  });
  const startWorker = async (killAt?: string) => {
    const child = startChild('sub-agent-worker.ts', [REDIS_URL, schema, prefix], killAt ? { KILL_AT: killAt } : {});
    children.push(child);
    await child.waitFor((line) => line === 'ready');
    return child;
  };
  return { store, queue, startWorker };
}

/** Both runs completed, each model step journaled once, `add` run once. */
async function expectBothDone(store: Store, childRunId: string, adds: string[]) {
  for (const [runId, steps] of [
    ['sub-w', [1, 2]],
    [childRunId, [1, 2]],
  ] as const) {
    const run = await store.readRun(runId);
    expect({ runId, status: run?.status }).toEqual({ runId, status: 'completed' });
    const events = run?.events ?? [];
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index));
    expect(
      events.filter((event) => event.type === 'model_end').map((event) => (event as { step: number }).step),
    ).toEqual(steps);
  }
  expect(adds).toEqual([`add ${childRunId}:c1`]);
}

scaleOut('@bridle/queue: a worker SIGKILLed while its run is in a sub-agent', () => {
  it('before the pause and after the decision: another worker resumes both runs from the journal; add runs once', async () => {
    const { store, queue, startWorker } = await workerSetup();
    const adds: string[] = [];
    const watch = (worker: Child) => {
      worker.process.stdout?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) if (line.startsWith('add ')) adds.push(line);
      });
      return worker;
    };
    // Killed in the sub-agent's first model call: the next worker finds the parent's call cut, continues the
    // same sub-agent run (its journal), and both pause.
    const first = watch(await startWorker('child:1'));
    await queue.enqueue({ prompt: 'sum', model: 'test:two-step', runId: 'sub-w' });
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = watch(await startWorker('child:2'));
    const paused = await queue.settled('sub-w');
    const childRunId = (paused.result as { pendingApprovals?: { runId?: string }[] }).pendingApprovals?.[0]
      ?.runId as string;
    expect(paused.result).toMatchObject({
      status: 'awaiting_approval',
      pendingApprovals: [{ callId: 'c1', name: 'add', arguments: { a: 2, b: 3 }, runId: childRunId }],
    });
    expect((await store.readRun(childRunId))?.events.filter((event) => event.type === 'run_start')).toHaveLength(2);
    // The approvals job: add runs, then the worker dies in the sub-agent's second model call; a third worker
    // continues the segment the decision started, without running add again.
    const decided = await queue.enqueue({ model: 'test:two-step', runId: 'sub-w', approvals: { c1: true } });
    expect((await second.exited).signal).toBe('SIGKILL');
    watch(await startWorker());
    const job = await queue.settled(decided.jobId);
    expect(job.result).toMatchObject({ status: 'completed', answer: 'parent: answer: sum', steps: 2, toolCalls: 1 });
    await expectBothDone(store, childRunId, adds);
  }, 180_000);
});
