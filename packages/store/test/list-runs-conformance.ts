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

    it('a running run is listed at its last event’s time: order, updatedAt, before and the filters follow it', async () => {
      const store = await open();
      // "ended" ends at second 5; "busy" starts at 0 and, in later appends that neither start nor end a
      // segment, moves on to second 7, then 9; "idle" starts at 6 and stays there.
      const ended = eventsOf('ended');
      const busy = eventsOf('busy');
      const idle = eventsOf('idle');
      await store.appendEvents('busy', [busy.start(0, { sessionId: 'S' })]);
      await store.appendEvents('ended', [ended.start(4), ended.end(5)]);
      await store.appendEvents('idle', [idle.start(6)]);
      await store.appendEvents('busy', stepEvents('busy', 1, 4));
      const ids = (rows: { runId: string }[]) => rows.map((row) => row.runId);
      let listed = await store.listRuns();
      expect(listed.map((row) => [row.runId, row.status, row.updatedAt])).toEqual([
        ['busy', 'running', timeAt(7)],
        ['idle', 'running', timeAt(6)],
        ['ended', 'completed', timeAt(5)],
      ]);
      await store.appendEvents('busy', [busy.modelStart(8, 2), busy.modelEnd(9, 2)]);
      listed = await store.listRuns({ status: 'running', sessionId: 'S' });
      expect(listed.map((row) => [row.runId, row.createdAt, row.updatedAt])).toEqual([['busy', timeAt(0), timeAt(9)]]);
      expect(ids(await store.listRuns({ before: timeAt(9) }))).toEqual(['idle', 'ended']);
      expect(ids(await store.listRuns({ before: timeAt(6) }))).toEqual(['ended']);
      expect(ids(await store.listRuns({ limit: 1 }))).toEqual(['busy']);
      expect(ids(await store.listRuns({ limit: 2, search: 'hello' }))).toEqual(['busy', 'idle']);
      // Its end settles it where its last event put it.
      await store.appendEvents('busy', [busy.end(10)]);
      expect((await store.listRuns({ status: 'completed' })).map((row) => [row.runId, row.updatedAt])).toEqual([
        ['busy', timeAt(10)],
        ['ended', timeAt(5)],
      ]);
      expect((await store.readRun('busy'))?.updatedAt).toBe(timeAt(10));
    });

    it('filters runs and sessions by tenant; tenant default also matches those that name none', async () => {
      const store = await open();
      const at = Date.UTC(2025, 1, 1);
      const runs: [string, string | undefined][] = [
        ['n0', undefined],
        ['a1', 'acme'],
        ['d2', 'default'],
        ['g3', 'globex'],
        ['a4', 'acme'],
      ];
      for (const [index, [runId, tenant]] of runs.entries()) {
        const e = eventsOf(runId, at + index * 60_000);
        await store.appendEvents(runId, [e.start(0, tenant === undefined ? {} : { tenant }), e.end(1)]);
      }
      // A resumed segment naming another tenant does not move the run.
      const later = eventsOf('a1', at + 10 * 60_000);
      await store.appendEvents('a1', [later.start(2, { tenant: 'globex', resumed: true })]);
      const ids = (rows: { runId: string }[]) => rows.map((row) => row.runId);
      expect(ids(await store.listRuns({ tenant: 'acme' }))).toEqual(['a1', 'a4']);
      expect(ids(await store.listRuns({ tenant: 'acme', limit: 1 }))).toEqual(['a1']);
      expect(ids(await store.listRuns({ tenant: 'default' }))).toEqual(['d2', 'n0']);
      expect(ids(await store.listRuns({ tenant: 'globex', status: 'completed' }))).toEqual(['g3']);
      expect(ids(await store.listRuns({ tenant: 'nobody' }))).toEqual([]);
      expect((await store.listRuns({ tenant: 'acme', limit: 1 }))[0]?.tenant).toBe('acme');
      expect((await store.listRuns({ tenant: 'default' })).map((row) => row.tenant)).toEqual(['default', undefined]);

      const session = (id: string, minute: number, tenant?: string) => ({
        id,
        messages: [],
        createdAt: new Date(at + minute * 60_000).toISOString(),
        updatedAt: new Date(at + minute * 60_000).toISOString(),
        ...(tenant === undefined ? {} : { tenant }),
      });
      await store.saveSession(session('s0', 0));
      await store.saveSession(session('s1', 1, 'acme'));
      await store.saveSession(session('s2', 2, 'globex'));
      await store.saveSession(session('s3', 3, 'acme'));
      const sessionIds = (rows: { id: string }[]) => rows.map((row) => row.id);
      expect(sessionIds(await store.listSessions({ tenant: 'acme' }))).toEqual(['s3', 's1']);
      expect(sessionIds(await store.listSessions({ tenant: 'acme', before: session('x', 3).updatedAt }))).toEqual([
        's1',
      ]);
      expect(sessionIds(await store.listSessions({ tenant: 'default' }))).toEqual(['s0']);
      expect(sessionIds(await store.listSessions())).toEqual(['s3', 's2', 's1', 's0']);
      expect((await store.getSession('s1'))?.tenant).toBe('acme');
      await expect(store.listRuns({ tenant: '' })).rejects.toThrow('listRuns: tenant must be a non-empty string');
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
        title: 'hello',
      });
    });
  });
}
