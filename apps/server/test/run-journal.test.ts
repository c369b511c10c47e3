import type { RunEvent } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { describe, expect, it } from 'vitest';
import { LiveRuns } from '../src/live-runs';
import { runJournal } from '../src/run-journal';
import type { ServerContext } from '../src/server-context';
import { serverCaller } from '../src/tenant-access';

const at = (runId: string, sequence: number) => ({ runId, sequence, timestamp: '2026-01-01T00:00:00.000Z' });

async function contextWithLiveRuns(): Promise<{ context: ServerContext; live: LiveRuns }> {
  const live = new LiveRuns();
  const store = await openStore('memory:');
  return { context: { agent: {}, live, store, auth: { named: false } } as unknown as ServerContext, live };
}

describe('runJournal', () => {
  it("leaves a new run's id to core and learns it from the run's run_start, not from a sub-agent's events", async () => {
    const { context, live } = await contextWithLiveRuns();
    const journal = runJournal(context, serverCaller(undefined, 'test'));
    expect(journal.runId).toBeUndefined();
    const [observe] = journal.observers() as [(event: RunEvent) => void];
    observe({ ...at('child', 0), parentRunId: 'run-9', type: 'run_start', model: 'm' } as RunEvent);
    expect(journal.runId).toBeUndefined();
    observe({ ...at('run-9', 0), type: 'run_start', model: 'm' } as RunEvent);
    expect(journal.runId).toBe('run-9');
    expect(live.has('run-9')).toBe(true);
    expect(live.has('child')).toBe(false);
    journal.close();
    expect(live.has('run-9')).toBe(false);
  });

  it('keeps a given run id (a resumed run) from the start', async () => {
    const { context, live } = await contextWithLiveRuns();
    const journal = runJournal(context, serverCaller(undefined, 'test'), 'run-3');
    expect(journal.runId).toBe('run-3');
    const [observe] = journal.observers() as [(event: RunEvent) => void];
    // Another run's events (a sub-agent's, forwarded) are not this run's.
    observe({ ...at('other', 0), type: 'run_start', model: 'm' } as RunEvent);
    expect(live.has('other')).toBe(false);
    observe({ ...at('run-3', 4), type: 'run_start', model: 'm' } as RunEvent);
    expect(live.has('run-3')).toBe(true);
    journal.close();
    expect(live.has('run-3')).toBe(false);
  });

  it('closes a new run that never started without settling anything', async () => {
    const { context } = await contextWithLiveRuns();
    const journal = runJournal(context, serverCaller(undefined, 'test'));
    expect(() => journal.close()).not.toThrow();
    expect(journal.runId).toBeUndefined();
  });
});
