import type { RunEvent, Store } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import type { OpenStoreOptions } from '../src/index';
import { state } from './conformance-helpers';
import { eventsOf, stepEvents, timeAt } from './events';

/** The listRuns part of the Store conformance suite (called inside `storeConformance`). */
export function listRunsConformance(open: (options?: OpenStoreOptions) => Promise<Store>): void {
  describe('listRuns', () => {
    async function seed(store: Store) {
      // r0..r5: updatedAt grows with the index; odd runs completed, even ones paused; r0-r2 in session A.
      for (let index = 0; index < 6; index++) {
        const runId = `r${index}`;
        const e = eventsOf(runId, Date.UTC(2025, 1, 1) + index * 60_000);
        const end = index % 2 === 1 ? e.end(1) : e.end(1, 'awaiting_approval', { ...state, runId });
        await store.appendEvents(runId, [e.start(0, index < 3 ? { sessionId: 'A' } : {}), end]);
      }
    }

    it('lists newest first, filters by derived status and session, pages with limit and before', async () => {
      const store = await open();
      await seed(store);
      const ids = (rows: { runId: string }[]) => rows.map((row) => row.runId);
      expect(ids(await store.listRuns())).toEqual(['r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
      expect(ids(await store.listRuns({ status: 'completed' }))).toEqual(['r5', 'r3', 'r1']);
      expect(ids(await store.listRuns({ status: 'awaiting_approval', sessionId: 'A' }))).toEqual(['r2', 'r0']);
      expect(ids(await store.listRuns({ sessionId: 'A', limit: 2 }))).toEqual(['r2', 'r1']);
      const page = await store.listRuns({ limit: 2 });
      expect(ids(page)).toEqual(['r5', 'r4']);
      expect(ids(await store.listRuns({ limit: 2, before: page.at(-1)?.updatedAt }))).toEqual(['r3', 'r2']);
      expect(await store.listRuns({ status: 'no such status' })).toEqual([]);
    });

    it('keeps times canonical (UTC, milliseconds): an offset, no milliseconds or a day past the month end', async () => {
      const store = await open();
      const at = (runId: string, sequence: number, timestamp: string) => ({
        ...eventsOf(runId).start(sequence),
        timestamp,
      });
      await store.appendEvents('c1', [at('c1', 0, '2025-02-30T00:00:00.000Z')]);
      await store.appendEvents('c2', [at('c2', 0, '2025-03-02T01:00:00+01:00')]);
      await store.appendEvents('c3', [at('c3', 0, '2025-03-02T00:00:01Z')]);
      await store.appendEvents('c4', [at('c4', 0, '2025-03-01T23:59:59.999Z')]);
      const times = Object.fromEntries((await store.listRuns()).map((row) => [row.runId, row.createdAt]));
      expect(times).toEqual({
        c1: '2025-03-02T00:00:00.000Z',
        c2: '2025-03-02T00:00:00.000Z',
        c3: '2025-03-02T00:00:01.000Z',
        c4: '2025-03-01T23:59:59.999Z',
      });
    });

    it('breaks ties of updatedAt by runId, descending; the default limit is 50', async () => {
      const store = await open();
      for (let index = 0; index < 55; index++) {
        const runId = `t${String(index).padStart(2, '0')}`;
        await store.appendEvents(runId, [eventsOf(runId).start(0)]);
      }
      const rows = await store.listRuns();
      expect(rows).toHaveLength(50);
      expect(rows[0]?.runId).toBe('t54');
      expect(rows[49]?.runId).toBe('t05');
    });
    it("lists a run's totals from its run_end events: the last segment's counts, durations summed", async () => {
      const store = await open();
      const e = eventsOf('r1');
      await store.appendEvents('r1', [e.start(0), ...stepEvents('r1', 1, 1)]);
      expect((await store.listRuns())[0]).not.toHaveProperty('steps');
      await store.appendEvents('r1', [e.end(5, 'awaiting_approval')]);
      // A segment that starts and pauses again in one append: the status stays, the totals move.
      await store.appendEvents('r1', [
        e.start(6, { resumed: true }),
        { ...e.end(7, 'awaiting_approval'), steps: 2 } as RunEvent,
      ]);
      expect((await store.listRuns())[0]).toMatchObject({ status: 'awaiting_approval', steps: 2, durationMs: 6 });
      await store.appendEvents('r1', [
        e.start(8, { resumed: true }),
        {
          ...e.end(9),
          steps: 2,
          toolCalls: 3,
          usage: { inputTokens: 30, outputTokens: 9, costUsd: 0.25 },
          durationMs: 4,
        } as RunEvent,
      ]);
      const [listed] = await store.listRuns();
      expect(listed).toEqual({
        runId: 'r1',
        status: 'completed',
        model: 'test:model',
        createdAt: timeAt(0),
        updatedAt: timeAt(9),
        steps: 2,
        toolCalls: 3,
        usage: { inputTokens: 30, outputTokens: 9, costUsd: 0.25 },
        durationMs: 10,
      });
    });
  });
}
