// Steering and cancelling a run that a queue worker runs: the signal travels over Redis pub/sub (the
// worker's store here carries none, so nothing else could deliver it).
import { cancelRun, steerRun } from '@bridle/core';
import type { Store, Tool } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { gatedTool, scriptedModel } from '@bridle/testing';
import { afterEach, expect, it } from 'vitest';
import { openRunQueue, type RunWorker, startRunWorker } from '../src/index';
import { dropPrefix, newPrefix, REDIS_URL, serviceSuite } from './services';

const suite = await serviceSuite('queue steering tests (Redis)', {});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The store without its own signals: only the queue's Redis channel can reach the worker's run. */
function withoutSignals(store: Store): Store {
  const { sendRunSignal: _send, listenRunSignals: _listen, ...rest } = store;
  return {
    ...rest,
    appendEvents: store.appendEvents.bind(store),
    readRun: store.readRun.bind(store),
    listRuns: store.listRuns.bind(store),
    getSession: store.getSession.bind(store),
    saveSession: store.saveSession.bind(store),
    deleteSession: store.deleteSession.bind(store),
    listSessions: store.listSessions.bind(store),
    close: store.close.bind(store),
  };
}

async function setup(tool: Tool) {
  const prefix = newPrefix();
  const store = await openStore('memory:');
  const queue = await openRunQueue({ redis: REDIS_URL, prefix });
  const model = scriptedModel([
    { content: '', toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] },
    { content: 'done' },
  ]);
  const worker: RunWorker = await startRunWorker({
    redis: REDIS_URL,
    prefix,
    store: withoutSignals(store),
    agent: () => ({ model, tools: [tool] }),
  });
  cleanups.push(async () => {
    await worker.close();
    await queue.close();
    await store.close();
    await dropPrefix(prefix);
  });
  return { store, queue, model };
}

suite('steering a queued run (Redis pub/sub)', () => {
  it('input reaches the worker running the run, at the next step boundary, and is journaled', async () => {
    const gate = gatedTool();
    const { store, queue, model } = await setup(gate.tool);
    const { runId } = await queue.enqueue({ prompt: 'go', model: 'scripted:model', runId: 'queued-steer' });
    await gate.running;
    expect(await steerRun({ store, runId, content: 'and be quick', by: 'api', channels: [queue] })).toEqual({
      runId,
      delivery: 'signal',
    });
    // The signal is on its way over Redis; the batch goes on undisturbed.
    await new Promise((resolve) => setTimeout(resolve, 100));
    gate.release();
    const job = await queue.settled(runId);
    expect(job.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'and be quick' });
    const events = (await store.readRun(runId))?.events ?? [];
    expect(events.map((event) => event.type)).toEqual([
      'run_start',
      'model_start',
      'model_end',
      'tool_start',
      'tool_end',
      'input',
      'model_start',
      'model_end',
      'run_end',
    ]);
    expect(events[5]).toMatchObject({ content: 'and be quick', by: 'api' });
  });

  it('cancel stops the run on its worker: the job completes with status aborted and cancelledBy', async () => {
    const gate = gatedTool();
    const { store, queue } = await setup(gate.tool);
    const { runId } = await queue.enqueue({ prompt: 'go', model: 'scripted:model', runId: 'queued-cancel' });
    await gate.running;
    await cancelRun({ store, runId, by: 'cli:ada', channels: [queue] });
    const job = await queue.settled(runId);
    expect(job.result).toMatchObject({ status: 'aborted' });
    expect((await store.readRun(runId))?.events.at(-1)).toMatchObject({
      type: 'run_end',
      status: 'aborted',
      cancelledBy: 'cli:ada',
    });
  });
});
