import type { Store } from '@bridle/protocol';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/index';
import { eventsOf, stepEvents, timeAt } from './events';
import {
  admin,
  dropSchemas,
  openInNewSchema,
  POSTGRES_URL,
  postgresProblem,
  schemaAtVersion,
  schemaFor,
} from './postgres-target';

// The Postgres append that neither starts nor ends a segment (schema version 5): its events only, fenced.
// Without Postgres these are skipped (postgres.test.ts warns once, and fails under CI=true).
const problem = await postgresProblem();
const suite = problem === undefined || process.env.CI === 'true' ? describe : describe.skip;

const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  if (problem === undefined) await dropSchemas();
});

/** The version of the run's row (a new one per UPDATE; a row lock leaves it). */
async function rowVersion(schema: string, runId: string): Promise<string | undefined> {
  const rows = await admin<{ version: string }>(
    `SELECT xmin::text AS version FROM "${schema}".bridle_runs WHERE run_id = $1`,
    [runId],
  );
  return rows[0]?.version;
}

/** A store in a new schema whose run `r1` owner `alpha` leased and started (its `run_start` journaled, fenced). */
async function startedRun(): Promise<{ store: Store; schema: string; token: number }> {
  const store = await openInNewSchema();
  stores.push(store);
  const taken = await store.acquireLease?.('r1', { owner: 'alpha', leaseMs: 60_000 });
  const token = taken?.acquired ? taken.lease.token : 0;
  await store.appendEvents('r1', [eventsOf('r1').start(0)], { fencingToken: token });
  return { store, schema: schemaFor(store), token };
}

suite('postgres: appends in a segment', () => {
  it("an append that neither starts nor ends a segment writes its events only: the run's row keeps its version", async () => {
    const { store, schema, token } = await startedRun();
    const e = eventsOf('r1');
    const started = await rowVersion(schema, 'r1');
    for (let step = 1; step <= 3; step++) {
      await store.appendEvents('r1', stepEvents('r1', step, step * 4 - 3), { fencingToken: token });
    }
    expect(await rowVersion(schema, 'r1')).toBe(started);
    expect(
      await admin(
        `SELECT sequence, time FROM "${schema}".bridle_run_events WHERE run_id = 'r1' AND sequence IN (0, 12)`,
      ),
    ).toEqual([
      { sequence: 0, time: timeAt(0) },
      { sequence: 12, time: timeAt(12) },
    ]);
    expect((await store.listRuns()).map((run) => [run.runId, run.status, run.updatedAt])).toEqual([
      ['r1', 'running', timeAt(12)],
    ]);
    // A segment's end moves the row: its status, totals and time.
    await store.appendEvents('r1', [e.end(13)], { fencingToken: token });
    expect(await rowVersion(schema, 'r1')).not.toBe(started);
    expect((await store.listRuns()).map((run) => [run.runId, run.status, run.updatedAt, run.steps])).toEqual([
      ['r1', 'completed', timeAt(13), 1],
    ]);
    expect((await store.readRun('r1'))?.events).toHaveLength(14);
  });

  it('insert-only appends of 1, 8 and 9 events (rows of scalars up to 8, arrays past that) journal every event as given', async () => {
    const { store, schema, token } = await startedRun();
    const e = eventsOf('r1');
    const started = await rowVersion(schema, 'r1');
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => e.modelStart(from + index, from + index));
    const appended = [...batch(1, 1), ...batch(2, 8), ...batch(10, 9)];
    await store.appendEvents('r1', appended.slice(0, 1), { fencingToken: token });
    await store.appendEvents('r1', appended.slice(1, 9), { fencingToken: token });
    await store.appendEvents('r1', appended.slice(9), { fencingToken: token });
    expect(await rowVersion(schema, 'r1')).toBe(started);
    expect((await store.readRun('r1'))?.events).toEqual([e.start(0), ...appended]);
    expect(
      await admin(`SELECT count(*)::int AS n FROM "${schema}".bridle_run_events WHERE run_id = 'r1' AND time IS NULL`),
    ).toEqual([{ n: 0 }]);
    // Retried as they are, both forms are skipped; with other content at a journaled sequence, both conflict.
    await store.appendEvents('r1', appended.slice(1, 9), { fencingToken: token });
    await store.appendEvents('r1', appended.slice(9), { fencingToken: token });
    await expect(
      store.appendEvents('r1', [e.modelStart(18, 99), e.modelStart(19)], { fencingToken: token }),
    ).rejects.toMatchObject({ code: 'store_conflict' });
    await expect(
      store.appendEvents('r1', [e.modelStart(17, 99), ...batch(18, 8)], { fencingToken: token }),
    ).rejects.toMatchObject({ code: 'store_conflict' });
    expect((await store.readRun('r1'))?.events).toHaveLength(19);
  });

  it('a lease taken while an append waits for the run is a fence: the append writes nothing', async () => {
    const { store, schema, token } = await startedRun();
    // Another process takes the run over in a transaction that has not committed yet.
    const thief = new pg.Client({ connectionString: POSTGRES_URL, application_name: 'bridle-test-thief' });
    await thief.connect();
    try {
      await thief.query('BEGIN');
      await thief.query(
        `UPDATE "${schema}".bridle_runs SET owner = 'beta', fencing_token = fencing_token + 1 WHERE run_id = 'r1'`,
      );
      let settled = false;
      const append = store
        .appendEvents('r1', stepEvents('r1', 1, 1), { fencingToken: token })
        .then(
          () => 'appended',
          (error: { code?: string }) => error.code,
        )
        .finally(() => {
          settled = true;
        });
      // The append reaches the server and waits for the takeover's row lock (it reads the row as last committed).
      while (!settled) {
        const waiting = await admin<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bridle' AND wait_event_type = 'Lock' AND query LIKE $1",
          [`%"${schema}"%`],
        );
        if (waiting[0]?.n === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await thief.query('COMMIT');
      expect(await append).toBe('store_fenced');
    } finally {
      await thief.end();
    }
    expect((await store.readRun('r1'))?.events.map((event) => event.type)).toEqual(['run_start']);
  });

  it('concurrent appends at one sequence: one is journaled, the other is a conflict (or skipped when identical)', async () => {
    const store = await openInNewSchema();
    const other = await openStore(POSTGRES_URL, { schema: schemaFor(store) });
    stores.push(store, other);
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    const [first, second] = await Promise.allSettled([
      store.appendEvents('r1', [eventsOf('r1').modelStart(1)]),
      other.appendEvents('r1', [eventsOf('r1').modelStart(1, 2)]),
    ]);
    const [same, again] = await Promise.allSettled([
      store.appendEvents('r1', [eventsOf('r1').toolStart(2)]),
      other.appendEvents('r1', [eventsOf('r1').toolStart(2)]),
    ]);
    expect([first?.status, second?.status].sort()).toEqual(['fulfilled', 'rejected']);
    const refused = (first?.status === 'rejected' ? first : second) as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'store_conflict' });
    expect([same?.status, again?.status]).toEqual(['fulfilled', 'fulfilled']);
    expect((await store.readRun('r1'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2]);
  });
});

suite('postgres: schema version 5', () => {
  it('upgrades a version 4 schema in place: a running run keeps its place in listRuns and goes on insert-only', async () => {
    const schema = await schemaAtVersion(4, '2026-12-01T00:00:00.000Z');
    // As version 4 left them: 'busy' running (its row moved with every append), 'done' completed after it.
    const busy = eventsOf('busy');
    const done = eventsOf('done', Date.UTC(2025, 0, 31, 12, 0, 0) + 5000);
    const journal = [busy.start(0), busy.modelStart(1), busy.modelEnd(2), done.start(0), done.end(1)];
    for (const event of journal) {
      await admin(`INSERT INTO "${schema}".bridle_run_events VALUES ($1, $2, $3, $4)`, [
        event.runId,
        event.sequence,
        event.type,
        JSON.stringify(event),
      ]);
    }
    await admin(
      `INSERT INTO "${schema}".bridle_runs (run_id, status, model, created_at, updated_at, last_sequence, owner, lease_until, fencing_token)
       VALUES ('busy', 'running', 'test:model', $1, $2, 2, 'alpha', 0, 1), ('done', 'completed', 'test:model', $3, $4, 1, NULL, NULL, 0)`,
      [timeAt(0), timeAt(2), timeAt(5), timeAt(6)],
    );

    const store = await openStore(POSTGRES_URL, { schema });
    stores.push(store);
    expect(await admin(`SELECT MAX(version) AS version FROM "${schema}".bridle_schema_version`)).toEqual([
      { version: 5 },
    ]);
    const listed = async (query = {}) =>
      (await store.listRuns(query)).map((run) => [run.runId, run.status, run.updatedAt]);
    expect(await listed()).toEqual([
      ['done', 'completed', timeAt(6)],
      ['busy', 'running', timeAt(2)],
    ]);
    // The old owner's token still fences; the events go on insert-only, and the run moves up the list.
    await store.appendEvents('busy', [busy.toolStart(3), busy.toolEnd(7)], { fencingToken: 1 });
    expect(await admin(`SELECT updated_at FROM "${schema}".bridle_runs WHERE run_id = 'busy'`)).toEqual([
      { updated_at: timeAt(2) },
    ]);
    expect(await listed()).toEqual([
      ['busy', 'running', timeAt(7)],
      ['done', 'completed', timeAt(6)],
    ]);
    expect(await listed({ before: timeAt(7) })).toEqual([['done', 'completed', timeAt(6)]]);
    expect(await listed({ status: 'running', limit: 1 })).toEqual([['busy', 'running', timeAt(7)]]);
    await store.acquireLease?.('busy', { owner: 'beta', leaseMs: 60_000, force: true });
    await expect(store.appendEvents('busy', [busy.modelStart(8, 2)], { fencingToken: 1 })).rejects.toMatchObject({
      code: 'store_fenced',
    });
    await store.appendEvents('busy', [busy.end(9)], { fencingToken: 2 });
    expect(await listed()).toEqual([
      ['busy', 'completed', timeAt(9)],
      ['done', 'completed', timeAt(6)],
    ]);
    expect((await store.readRun('busy'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3, 7, 9]);
  });
});
