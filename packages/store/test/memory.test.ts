import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index';
import { MemoryStore } from '../src/memory-store';
import { eventsOf } from './events';
import { storeConformance } from './store-conformance';

const AT = '2025-01-01T00:00:00.000Z';

storeConformance('memory:', {
  open: (options) => openStore('memory:', options),
  corruptEvent: async (store, runId, sequence, text) => (store as MemoryStore).corruptForTest(runId, sequence, text),
  corruptSession: async (store, id, text) => (store as MemoryStore).corruptSessionForTest(id, text),
});

describe('memory:', () => {
  it('each openStore("memory:") is a new, empty store', async () => {
    const first = await openStore('memory:');
    await first.appendEvents('r1', [eventsOf('r1').start(0)]);
    const second = await openStore('memory:');
    expect(await second.readRun('r1')).toBeUndefined();
    expect(first).toBeInstanceOf(MemoryStore);
  });

  it('copies each event whole, whatever was copied before it: a large event, then small ones, then one read while copied appends', async () => {
    const store = await openStore('memory:');
    const big = {
      type: 'note',
      runId: 'r',
      sequence: 1,
      timestamp: AT,
      items: Array.from({ length: 3000 }, (_, i) => [i, `${i}`]),
    };
    const small = { type: 'note', runId: 'r', sequence: 2, timestamp: AT, items: [1] };
    await store.appendEvents('r', [eventsOf('r').start(0), big as never, small as never]);
    const inner = { type: 'note', runId: 'other', sequence: 1, timestamp: AT, text: 'inner' };
    const outer = {
      type: 'note',
      runId: 'r',
      sequence: 3,
      timestamp: AT,
      first: 'before',
      // Read as the event is copied: appends another run's event meanwhile (a copy inside a copy).
      get during(): string {
        void store.appendEvents('other', [eventsOf('other').start(0), inner as never]);
        return 'read';
      },
      last: ['after', { n: 2 }],
    };
    await store.appendEvents('r', [outer as never]);
    const events = (await store.readRun('r'))?.events ?? [];
    expect(events.slice(1)).toEqual([big, small, { ...JSON.parse(JSON.stringify(outer)), during: 'read' }]);
    expect(JSON.stringify(events[3])).toBe(
      `{"type":"note","runId":"r","sequence":3,"timestamp":"${AT}","first":"before","during":"read","last":["after",{"n":2}]}`,
    );
    expect((await store.readRun('other'))?.events[1]).toEqual(inner);
  });

  it("updates a run's row in place: summaries read before later appends stay as read, a refused append changes nothing", async () => {
    const store = await openStore('memory:');
    const events = eventsOf('r');
    await store.appendEvents('r', [events.start(0)]);
    const [running] = await store.listRuns();
    await store.appendEvents('r', [events.modelStart(1), events.modelEnd(2)]);
    const [middle] = await store.listRuns();
    // A retried batch whose last event differs is a conflict: nothing of it is written.
    const changed = { ...events.modelEnd(2), content: 'other' };
    await expect(store.appendEvents('r', [events.modelStart(1), changed])).rejects.toMatchObject({
      code: 'store_conflict',
    });
    await expect(store.appendEvents('r', [events.end(1)])).rejects.toMatchObject({ code: 'store_conflict' });
    expect(await store.listRuns()).toEqual([middle]);
    await store.appendEvents('r', [events.end(3)]);
    const [ended] = await store.listRuns();
    expect(running).toMatchObject({ status: 'running', updatedAt: events.start(0).timestamp });
    expect(running?.steps).toBeUndefined();
    expect(middle).toMatchObject({ status: 'running', updatedAt: events.modelEnd(2).timestamp });
    expect(ended).toMatchObject({ status: 'completed', updatedAt: events.end(3).timestamp, steps: 1, durationMs: 3 });
    expect(ended?.usage).not.toBe(middle?.usage);
    expect((await store.readRun('r'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3]);
  });

  it('keeps at most maxRuns journals, forgetting the run appended to least recently that is not running', async () => {
    const store = await openStore('memory:', { maxRuns: 2 });
    const minute = (index: number) => Date.UTC(2025, 0, 1) + index * 60_000;
    const [a, b, c, d] = [
      eventsOf('a', minute(0)),
      eventsOf('b', minute(1)),
      eventsOf('c', minute(2)),
      eventsOf('d', minute(3)),
    ];
    await store.appendEvents('a', [a.start(0)]);
    await store.appendEvents('b', [b.start(0), b.end(1)]);
    await store.appendEvents('c', [c.start(0), c.end(1, 'awaiting_approval')]);
    // Over the bound: 'a' is the oldest but still running, so 'b' (ended) goes.
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['c', 'a']);
    expect(await store.readRun('b')).toBeUndefined();
    await store.appendEvents('a', [a.end(1)]);
    await store.appendEvents('d', [d.start(0)]);
    // 'a' was appended to after 'c': 'c' goes, though its events are later in time.
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['d', 'a']);
  });

  it('a run that ends while it is the newest stays last; the newest run evicted by its own append is forgotten', async () => {
    const store = await openStore('memory:', { maxRuns: 2 });
    const [a, b, c] = [eventsOf('a'), eventsOf('b'), eventsOf('c')];
    await store.appendEvents('a', [a.start(0), a.end(1)]);
    await store.appendEvents('b', [b.start(0)]);
    await store.appendEvents('b', [b.end(1)]);
    await store.appendEvents('c', [c.start(0), c.end(1)]);
    // 'a' ended before 'b' did: it goes first.
    expect(await store.readRun('a')).toBeUndefined();
    expect((await store.readRun('b'))?.status).toBe('completed');

    const small = await openStore('memory:', { maxRuns: 1 });
    const [r1, r2, r3] = [eventsOf('r1'), eventsOf('r2'), eventsOf('r3')];
    await small.appendEvents('r1', [r1.start(0)]);
    // Over the bound with 'r1' running: the run just appended, ended, is the one to go.
    await small.appendEvents('r2', [r2.start(0), r2.end(1)]);
    expect(await small.readRun('r2')).toBeUndefined();
    await small.appendEvents('r1', [r1.end(1)]);
    await small.appendEvents('r2', [r2.start(0)]);
    // 'r1' is the only run not running: it goes, and 'r2' is kept as a new run.
    expect(await small.readRun('r1')).toBeUndefined();
    expect((await small.readRun('r2'))?.events).toHaveLength(1);
    await small.appendEvents('r3', [r3.start(0), r3.end(1)]);
    expect((await small.listRuns()).map((run) => run.runId).sort()).toEqual(['r2']);
  });

  it('counts a resumed segment as an append: the run it ends is the newest', async () => {
    const store = await openStore('memory:', { maxRuns: 2 });
    const [x, y, z] = [eventsOf('x'), eventsOf('y'), eventsOf('z')];
    await store.appendEvents('x', [x.start(0), x.end(1, 'awaiting_approval')]);
    await store.appendEvents('y', [y.start(0), y.end(1)]);
    await store.appendEvents('x', [x.start(2)]);
    await store.appendEvents('x', [x.end(3)]);
    await store.appendEvents('z', [z.start(0), z.end(1)]);
    expect(await store.readRun('y')).toBeUndefined();
    expect((await store.readRun('x'))?.status).toBe('completed');
  });

  it('lets running runs pass maxRuns rather than forget one', async () => {
    const store = await openStore('memory:', { maxRuns: 1 });
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    await store.appendEvents('r2', [eventsOf('r2').start(1)]);
    expect(await store.listRuns()).toHaveLength(2);
  });

  it('a maxRuns that is not a positive integer is a ConfigError', async () => {
    await expect(openStore('memory:', { maxRuns: 0 })).rejects.toThrow(/maxRuns/);
  });

  it('keeps at most maxSessions sessions, forgetting the one saved least recently', async () => {
    const store = await openStore('memory:', { maxSessions: 2 });
    const session = (id: string) => ({
      id,
      messages: [{ role: 'user' as const, content: id }],
      createdAt: AT,
      updatedAt: AT,
    });
    await store.saveSession(session('a'));
    await store.saveSession(session('b'));
    await store.saveSession(session('a')); // saved again: now the newest
    await store.saveSession(session('c'));
    expect(await store.getSession('b')).toBeUndefined();
    expect((await store.getSession('a'))?.messages).toEqual([{ role: 'user', content: 'a' }]);
    expect((await store.listSessions()).map((summary) => summary.id).sort()).toEqual(['a', 'c']);
  });

  it('keeps 1000 sessions by default, and refuses a maxSessions that is not a positive integer', async () => {
    const store = await openStore('memory:');
    for (let index = 0; index <= 1000; index += 1)
      await store.saveSession({ id: `s${index}`, messages: [], createdAt: AT, updatedAt: AT });
    expect(await store.getSession('s0')).toBeUndefined();
    expect(await store.getSession('s1')).toBeDefined();
    expect(await store.listSessions({ limit: 1000 })).toHaveLength(1000);
    await expect(openStore('memory:', { maxSessions: 1.5 })).rejects.toThrow(/maxSessions/);
  });
});
