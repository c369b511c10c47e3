// Recovery: a store opened with `recover: true` resumes runs whose owner died (their lease expired), once each.
import type { RunEvent, Store } from '@bridle/protocol';
import { openStore, recoverRuns } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { resumeRun, runAgent } from '../src/index';
import { addTool, call, deferred, recorder } from './helpers';

const script = () => [
  { content: '', toolCalls: [call('c1', 'add', { a: 2, b: 3 })], finishReason: 'tool_calls' as const },
  { content: 'five', finishReason: 'stop' as const },
];

/** Journals in `store`, under a lease of `leaseMs` held by `dead`, what a process had written when it died: a run up to its tool call. */
async function orphan(store: Store, runId: string, leaseMs: number): Promise<void> {
  const events = recorder();
  await runAgent({ model: scriptedModel(script()), tools: [addTool()], prompt: 'add', runId, onEvent: events.onEvent });
  const upToTool = events.events.slice(
    0,
    events.events.findIndex((event: RunEvent) => event.type === 'tool_start'),
  );
  const taken = await store.acquireLease?.(runId, { owner: 'dead', leaseMs });
  if (!taken?.acquired) throw new Error('no lease');
  await store.appendEvents(runId, upToTool, { fencingToken: taken.lease.token });
}

describe('recovery', () => {
  it('openStore(url, { recover: true, resume }) resumes a run whose lease expired, and it completes', async () => {
    const done = deferred<string>();
    const scratch = await openStore('memory:');
    await orphan(scratch, 'lost', 1);
    const events = (await scratch.readRun('lost'))?.events ?? [];
    const store = await openStore('memory:', {
      recover: { intervalMs: 20, owner: 'rescuer' },
      resume: async (lease, opened) => {
        const result = await resumeRun({
          model: scriptedModel(script().slice(1)),
          tools: [addTool()],
          store: opened,
          runId: lease.runId,
          ownership: { lease },
        });
        done.resolve(result.status);
      },
    });
    const lease = await store.acquireLease?.('lost', { owner: 'dead', leaseMs: 1 });
    if (!lease?.acquired) throw new Error('no lease');
    await store.appendEvents('lost', events, { fencingToken: lease.lease.token });
    expect(await done.promise).toBe('completed');
    const run = await store.readRun('lost');
    expect(run?.status).toBe('completed');
    expect(run?.events.filter((event) => event.type === 'run_start')).toHaveLength(2);
    expect((await store.listRuns())[0]?.owner).toBeUndefined();
    await store.close();
    await scratch.close();
  });

  it('two recoverers on one store: each orphan is resumed by exactly one', async () => {
    const store = await openStore('memory:');
    for (let index = 0; index < 6; index++) await orphan(store, `o${index}`, 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const resumedBy = new Map<string, string[]>();
    const recoverer = (name: string) =>
      recoverRuns(store, {
        owner: name,
        intervalMs: 10,
        resume: async (lease) => {
          resumedBy.set(lease.runId, [...(resumedBy.get(lease.runId) ?? []), name]);
          await resumeRun({
            model: scriptedModel(script().slice(1)),
            tools: [addTool()],
            store,
            runId: lease.runId,
            ownership: { lease },
          });
        },
      });
    const [a, b] = [recoverer('a'), recoverer('b')];
    await expect.poll(async () => (await store.listRuns({ status: 'completed' })).length, { timeout: 10_000 }).toBe(6);
    a.stop();
    b.stop();
    expect([...resumedBy.keys()].sort()).toEqual(['o0', 'o1', 'o2', 'o3', 'o4', 'o5']);
    for (const names of resumedBy.values()) expect(names).toHaveLength(1);
    await store.close();
  });

  it('recover without resume is a ConfigError', async () => {
    await expect(openStore('memory:', { recover: true })).rejects.toThrow(/recover needs resume/);
  });
});
