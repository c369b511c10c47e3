import type { RunEvent, Store, StoredRun } from '@bridle/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpenStoreOptions, StoreError } from '../src/index';
import { badInputConformance } from './bad-input-conformance';
import { json, rejection, state } from './conformance-helpers';
import { consoleConformance } from './console-conformance';
import { eventsOf, stepEvents, timeAt } from './events';
import { leaseConformance } from './lease-conformance';
import { listRunsConformance } from './list-runs-conformance';
import { readEventsConformance } from './read-events-conformance';
import { sessionAndFaultConformance } from './session-fault-conformance';

/** How the conformance suite reaches one kind of store. */
export interface ConformanceTarget {
  /** A new, empty store. */
  open(options?: OpenStoreOptions): Promise<Store>;
  /** The same database as `store` opened again (after `store.close()`); absent where nothing outlives a close. */
  reopen?(store: Store): Promise<Store>;
  /** Overwrites the stored text of a journal row (simulates a damaged row). */
  corruptEvent(store: Store, runId: string, sequence: number, text: string): Promise<void>;
  /** Overwrites the stored text of a session. */
  corruptSession(store: Store, id: string, text: string): Promise<void>;
}

/**
 * The one behaviour every `Store` must have (SPEC "@bridle/store"), run against memory, SQLite and Postgres.
 * Each test opens its own empty store through `target.open()`.
 */
export function storeConformance(name: string, target: ConformanceTarget): void {
  describe(`${name}: Store conformance`, () => {
    const opened: Store[] = [];
    const open = async (options?: OpenStoreOptions) => {
      const store = await target.open(options);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    describe('journal', () => {
      it('returns appended events in sequence order, as JSON, across appends', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const first = [e.start(0, { sessionId: 's1' }), e.modelStart(1)];
        const withUndefined = { ...e.modelEnd(2), finishReason: undefined } as RunEvent;
        await store.appendEvents('r1', first);
        await store.appendEvents('r1', [withUndefined, e.toolStart(3)]);
        const run = await store.readRun('r1');
        expect(run).toEqual({
          runId: 'r1',
          status: 'running',
          events: json([...first, withUndefined, e.toolStart(3)]),
          createdAt: timeAt(0),
          updatedAt: timeAt(3),
        });
        expect(Object.keys(run?.events[2] ?? {})).not.toContain('finishReason');
      });

      it('an unknown run reads as undefined; an empty batch writes nothing', async () => {
        const store = await open();
        expect(await store.readRun('nobody')).toBeUndefined();
        await store.appendEvents('r1', []);
        expect(await store.readRun('r1')).toBeUndefined();
        expect(await store.listRuns()).toEqual([]);
      });

      it('keeps its own copy: changing an appended or a returned event changes nothing stored', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const batch = [e.start(0), e.toolEnd(1, 1, 'original'), e.modelEnd(2)];
        await store.appendEvents('r1', batch);
        (batch[1] as { result: string }).result = 'changed after append';
        (batch[2] as { usage: { inputTokens: number } }).usage.inputTokens = -1;
        const read = (await store.readRun('r1')) as StoredRun;
        (read.events[1] as { result: string }).result = 'changed after read';
        (read.events[2] as { usage: { inputTokens: number } }).usage.inputTokens = -2;
        const again = ((await store.readRun('r1')) as StoredRun).events;
        expect(again[1]).toMatchObject({ result: 'original' });
        expect(again[2]).toMatchObject({ usage: { inputTokens: 10 } });
      });

      it('keeps what the JSON of an event says: Dates and toJSON as written, NaN null, -0 0, undefined left out', async () => {
        const store = await open();
        const e = eventsOf('r1');
        let deep: unknown = { leaf: [1, 'two'] };
        for (let level = 0; level < 100; level++) deep = { level, next: deep };
        class Point {
          constructor(
            readonly x: number,
            readonly y: number,
          ) {}
          get sum(): number {
            return this.x + this.y;
          }
        }
        // One awkward value per event, so that each is kept on its own (a store may take another path for some).
        const awkward: Record<string, unknown>[] = [
          { numbers: [Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 0.1 + 0.2, -1.5e-308] },
          { holes: [undefined, () => 1, Symbol('s'), 'kept', new Array(2)], skipped: undefined, fn: () => 1 },
          { nested: { a: [{ b: null, c: true, d: '\u0000🦀' }], e: {} }, empty: [] },
          { at: new Date(Date.UTC(2025, 0, 2)) },
          { money: { toJSON: () => '12.50 EUR' } },
          { point: new Point(1, 2) },
          { boxed: [new String('s'), new Number(1), new Boolean(false)] },
          { withKey: JSON.parse('{"__proto__": {"polluted": true}, "b": 2}') },
          { nullPrototype: Object.assign(Object.create(null) as object, { a: 1 }) },
          { deep },
        ];
        const events = [
          e.start(0),
          ...awkward.map((extra, index) => ({ ...e.toolEnd(index + 1, 1, 'r'), ...extra }) as unknown as RunEvent),
        ];
        await store.appendEvents('r1', events);
        const read = ((await store.readRun('r1')) as StoredRun).events;
        expect(read).toEqual(json(events));
        expect(read.map((event) => JSON.stringify(event))).toEqual(events.map((event) => JSON.stringify(event)));
        expect(Object.getPrototypeOf((read[8] as unknown as { withKey: object }).withKey)).toBe(Object.prototype);
        expect(Object.keys((read[8] as unknown as { withKey: object }).withKey)).toEqual(['__proto__', 'b']);
        // A retried append of the same events is the same content: nothing more is written.
        await store.appendEvents('r1', events);
        expect(((await store.readRun('r1')) as StoredRun).events).toHaveLength(events.length);
      });

      it('keeps only own fields while Object.prototype has an enumerable one (as JSON does)', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const events = [e.start(0), e.modelEnd(1)];
        const prototype = Object.prototype as Record<string, unknown>;
        prototype.pollutedForTest = 'inherited';
        let appended: Promise<void>;
        try {
          // The store reads what it keeps within the call.
          appended = store.appendEvents('r1', events);
        } finally {
          delete prototype.pollutedForTest;
        }
        await appended;
        expect(((await store.readRun('r1')) as StoredRun).events).toEqual(json(events));
        expect(Object.keys(((await store.readRun('r1')) as StoredRun).events[1] ?? {})).not.toContain(
          'pollutedForTest',
        );
      });

      it('an event of exactly maxEventChars characters of JSON is kept, whatever it escapes', async () => {
        const store = await open({ maxEventChars: 1000 });
        const e = eventsOf('r1');
        const base = { ...e.toolEnd(1, 1, '') } as { result: string };
        // Quotes and control characters take more characters in JSON than in the string.
        const fill = (total: number) => {
          const event = { ...base, result: '' };
          while (JSON.stringify(event).length < total) event.result += event.result.length % 2 === 0 ? '"' : 'x';
          return event as unknown as RunEvent;
        };
        const exact = fill(1000);
        expect(JSON.stringify(exact)).toHaveLength(1000);
        await store.appendEvents('r1', [e.start(0), exact]);
        expect(((await store.readRun('r1')) as StoredRun).events[1]).toEqual(json(exact));
        const over = { ...fill(1000), result: `${(exact as unknown as { result: string }).result}\n` } as RunEvent;
        const error = await rejection(store.appendEvents('r2', [{ ...over, runId: 'r2' }]));
        expect(error.message).toContain('over the limit of 1000');
      });

      it('round-trips text that databases trip on: NUL, emoji, lone surrogates, quotes, 1 MB results', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const awkward = 'nul:\u0000 emoji:🦀 lone:\ud800 quote:\'" backslash:\\ newline:\n';
        const big = 'x'.repeat(1024 * 1024);
        await store.appendEvents('r1', [e.start(0), e.toolEnd(1, 1, awkward), e.toolEnd(2, 1, big)]);
        const events = (await store.readRun('r1'))?.events as { result?: string }[];
        expect(events[1]?.result).toBe(awkward);
        expect(events[2]?.result).toBe(big);
      });

      it('allows gaps forward and events of unknown types (newer cores may add some)', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const custom = {
          runId: 'r1',
          sequence: 7,
          timestamp: timeAt(7),
          type: 'approval_note',
          note: 1,
        } as unknown as RunEvent;
        await store.appendEvents('r1', [e.start(0), e.modelStart(3)]);
        await store.appendEvents('r1', [custom]);
        expect((await store.readRun('r1'))?.events.map((event) => event.sequence)).toEqual([0, 3, 7]);
      });
    });

    readEventsConformance(open, target);

    describe('status and state derived from the journal', () => {
      it('is running until run_end, then the run_end status; model and session come from run_start', async () => {
        const store = await open();
        const e = eventsOf('r1');
        await store.appendEvents('r1', [e.start(0, { sessionId: 's1', model: 'openai:gpt' })]);
        expect((await store.readRun('r1'))?.status).toBe('running');
        expect(await store.listRuns()).toEqual([
          {
            runId: 'r1',
            status: 'running',
            model: 'openai:gpt',
            sessionId: 's1',
            createdAt: timeAt(0),
            updatedAt: timeAt(0),
            title: 'hello',
          },
        ]);
        await store.appendEvents('r1', [...stepEvents('r1', 1, 1), e.end(5, 'step_limit')]);
        const run = await store.readRun('r1');
        expect(run?.status).toBe('step_limit');
        expect(run?.state).toBeUndefined();
        expect(await store.listRuns()).toEqual([
          {
            runId: 'r1',
            status: 'step_limit',
            model: 'openai:gpt',
            sessionId: 's1',
            createdAt: timeAt(0),
            updatedAt: timeAt(5),
            steps: 1,
            toolCalls: 1,
            usage: { inputTokens: 10, outputTokens: 5 },
            durationMs: 3,
            title: 'hello',
          },
        ]);
      });

      it('a paused segment carries state; a resumed segment is running without state; its run_end decides', async () => {
        const store = await open();
        const e = eventsOf('paused');
        await store.appendEvents('paused', [e.start(0), e.end(1, 'awaiting_approval', state)]);
        let run = await store.readRun('paused');
        expect(run?.status).toBe('awaiting_approval');
        expect(run?.state).toEqual(state);
        expect((await store.listRuns({ status: 'awaiting_approval' })).map((row) => row.runId)).toEqual(['paused']);

        await store.appendEvents('paused', [e.start(2, { resumed: true, model: 'other:model' })]);
        run = await store.readRun('paused');
        expect(run?.status).toBe('running');
        expect(run?.state).toBeUndefined();
        expect(await store.listRuns({ status: 'awaiting_approval' })).toEqual([]);
        const [row] = await store.listRuns({ status: 'running' });
        expect(row?.model).toBe('test:model');

        await store.appendEvents('paused', [...stepEvents('paused', 1, 3), e.end(7)]);
        run = await store.readRun('paused');
        expect(run?.status).toBe('completed');
        expect(run?.state).toBeUndefined();
        expect((await store.listRuns({ status: 'completed' })).map((summary) => summary.runId)).toEqual(['paused']);
      });

      it('only a run_start opens a segment: other events after run_end leave the status', async () => {
        const store = await open();
        const e = eventsOf('r1');
        await store.appendEvents('r1', [e.start(0), e.end(1, 'aborted')]);
        await store.appendEvents('r1', [e.modelStart(2)]);
        expect((await store.readRun('r1'))?.status).toBe('aborted');
        expect((await store.listRuns())[0]?.status).toBe('aborted');
      });

      it('a journal without run_start is running, without model or session', async () => {
        const store = await open();
        await store.appendEvents('r1', stepEvents('r1', 1, 0));
        expect(await store.listRuns()).toEqual([
          { runId: 'r1', status: 'running', createdAt: timeAt(0), updatedAt: timeAt(3) },
        ]);
      });
    });

    describe('appends are idempotent and append-only', () => {
      it('skips events already journaled with the same content (a retried append) and keeps the new ones', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const batch = [e.start(0), e.modelStart(1), e.modelEnd(2)];
        await store.appendEvents('r1', batch);
        await store.appendEvents('r1', batch);
        await store.appendEvents('r1', [e.modelEnd(2), e.toolStart(3), e.toolEnd(4)]);
        const run = await store.readRun('r1');
        expect(run?.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3, 4]);
        expect(run?.events).toEqual(json([...batch, e.toolStart(3), e.toolEnd(4)]));
      });

      it('refuses different content at a journaled sequence, writing nothing of the batch', async () => {
        const store = await open();
        const e = eventsOf('r1');
        await store.appendEvents('r1', [e.start(0), e.toolEnd(1, 1, 'first')]);
        const error = await rejection(store.appendEvents('r1', [e.toolEnd(1, 1, 'second'), e.end(2)]));
        expect(error.code).toBe('store_conflict');
        expect(error.message).toContain('sequence 1 is already journaled with different content');
        const run = await store.readRun('r1');
        expect(run?.events.map((event) => event.sequence)).toEqual([0, 1]);
        expect(run?.status).toBe('running');
      });

      it('refuses an event before the last journaled sequence that is not already there', async () => {
        const store = await open();
        const e = eventsOf('r1');
        await store.appendEvents('r1', [e.start(0), e.modelStart(5)]);
        const error = await rejection(store.appendEvents('r1', [e.modelStart(3)]));
        expect(error.code).toBe('store_conflict');
        expect(error.message).toContain("sequence 3 comes before the run's last journaled sequence 5");
        expect((await store.readRun('r1'))?.events.map((event) => event.sequence)).toEqual([0, 5]);
      });

      it('concurrent identical appends journal once; concurrent conflicting appends: one wins, one conflicts', async () => {
        const store = await open();
        const e = eventsOf('r1');
        const batch = [e.start(0), ...stepEvents('r1', 1, 1)];
        await Promise.all(Array.from({ length: 6 }, () => store.appendEvents('r1', batch)));
        expect((await store.readRun('r1'))?.events).toEqual(json(batch));

        const outcomes = await Promise.allSettled([
          store.appendEvents('r1', [e.toolEnd(5, 2, 'A')]),
          store.appendEvents('r1', [e.toolEnd(5, 2, 'B')]),
        ]);
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const [failure] = outcomes.filter((outcome) => outcome.status === 'rejected');
        expect(StoreError.isInstance(failure?.reason) && failure.reason.code).toBe('store_conflict');
        const last = (await store.readRun('r1'))?.events.at(-1) as { result: string };
        expect(['A', 'B']).toContain(last.result);
      });

      it('many runs appended concurrently step by step keep every event', async () => {
        const store = await open();
        await Promise.all(
          Array.from({ length: 8 }, async (_, index) => {
            const runId = `run-${index}`;
            await store.appendEvents(runId, [eventsOf(runId).start(0)]);
            for (let step = 1; step <= 5; step++)
              await store.appendEvents(runId, stepEvents(runId, step, step * 4 - 3));
            await store.appendEvents(runId, [eventsOf(runId).end(21)]);
          }),
        );
        const runs = await store.listRuns({ status: 'completed' });
        expect(runs).toHaveLength(8);
        for (const { runId } of runs) {
          const run = await store.readRun(runId);
          expect(run?.events.map((event) => event.sequence)).toEqual(Array.from({ length: 22 }, (_, index) => index));
        }
      });
    });

    badInputConformance(open);

    sessionAndFaultConformance(target, open);

    listRunsConformance(open);
    consoleConformance(open);
    leaseConformance(open);

    if (target.reopen !== undefined) {
      const reopen = target.reopen.bind(target);
      it('everything appended and saved is there after close and reopen', async () => {
        const store = await target.open();
        const e = eventsOf('r1');
        await store.appendEvents('r1', [e.start(0, { sessionId: 's1' }), e.end(1, 'awaiting_approval', state)]);
        await store.saveSession({
          id: 's1',
          messages: [{ role: 'user', content: 'hi' }],
          createdAt: timeAt(0),
          updatedAt: timeAt(1),
        });
        const before = {
          run: await store.readRun('r1'),
          runs: await store.listRuns(),
          session: await store.getSession('s1'),
        };
        await store.close();
        const again = await reopen(store);
        opened.push(again);
        expect({
          run: await again.readRun('r1'),
          runs: await again.listRuns(),
          session: await again.getSession('s1'),
        }).toEqual(before);
        await again.appendEvents('r1', [e.start(2, { resumed: true })]);
        expect((await again.readRun('r1'))?.status).toBe('running');
      });
    }
  });
}
