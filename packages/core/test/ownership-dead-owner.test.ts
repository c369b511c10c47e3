import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { JournalError, runAgent } from '../src/index';

/** The pid of a process of this machine that has ended. */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid as number;
}

describe('a lease held by a process of this machine', () => {
  it('that no longer exists is taken over at once (a killed `bridle run`, then `bridle resume`)', async () => {
    const store = await openStore('memory:');
    const taken = await store.acquireLease?.('r1', { owner: `${os.hostname()}:${endedPid()}:abc123`, leaseMs: 60_000 });
    expect(taken?.acquired).toBe(true);
    const result = await runAgent({ model: scriptedModel([{ content: 'done' }]), prompt: 'hi', store, runId: 'r1' });
    expect(result.status).toBe('completed');
    await store.close();
  });

  it('that is still running keeps the run: refused with a fenced JournalError, nothing journaled', async () => {
    const store = await openStore('memory:');
    await store.acquireLease?.('r2', { owner: `${os.hostname()}:${process.ppid}:abc123`, leaseMs: 60_000 });
    const error = await runAgent({
      model: scriptedModel([{ content: 'done' }]),
      prompt: 'hi',
      store,
      runId: 'r2',
    }).catch((caught: unknown) => caught);
    expect(JournalError.isInstance(error) && error.fenced).toBe(true);
    expect((await store.readRun('r2'))?.events ?? []).toEqual([]);
    await store.close();
  });
});
