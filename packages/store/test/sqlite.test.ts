import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Store } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, StoreError } from '../src/index';
import { SQLITE_MIGRATIONS } from '../src/sqlite-migrations';
import { startChild } from './child';
import { eventsOf, stepEvents, timeAt } from './events';
import { storeConformance } from './store-conformance';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-store-sqlite-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let counter = 0;
const newFile = () => path.join(root, `store-${++counter}.db`);
const files = new WeakMap<Store, string>();

function raw(file: string, run: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    run(db);
  } finally {
    db.close();
  }
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ConfigError.isInstance(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

storeConformance('sqlite', {
  async open(options) {
    const file = newFile();
    const store = await openStore(`sqlite:${file}`, options);
    files.set(store, file);
    return store;
  },
  async reopen(store) {
    const file = files.get(store) as string;
    const again = await openStore(file);
    files.set(again, file);
    return again;
  },
  async corruptEvent(store, runId, sequence, text) {
    raw(files.get(store) as string, (db) =>
      db.prepare('UPDATE bridle_run_events SET data = ? WHERE run_id = ? AND sequence = ?').run(text, runId, sequence),
    );
  },
  async corruptSession(store, id, text) {
    raw(files.get(store) as string, (db) =>
      db.prepare('UPDATE bridle_sessions SET data = ? WHERE id = ?').run(text, id),
    );
  },
});

describe('sqlite: opening', () => {
  it('takes sqlite:<path> and a bare path, resolves relative paths against cwd and creates folders', async () => {
    const cwd = path.join(root, 'cwd');
    const bare = await openStore('nested/deeper/bare.db', { cwd });
    await bare.appendEvents('r1', [eventsOf('r1').start(0)]);
    await bare.close();
    const prefixed = await openStore('sqlite:nested/deeper/bare.db', { cwd });
    expect((await prefixed.readRun('r1'))?.status).toBe('running');
    await prefixed.close();
    raw(path.join(cwd, 'nested/deeper/bare.db'), (db) => {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT version FROM bridle_schema_version').all()).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
        { version: 7 },
        { version: 8 },
      ]);
    });
  });

  it('without a URL opens sqlite:.bridle/bridle.db under cwd (the apps default)', async () => {
    const cwd = path.join(root, 'default-cwd');
    const store = await openStore(undefined, { cwd });
    await store.close();
    expect(fs.existsSync(path.join(cwd, '.bridle', 'bridle.db'))).toBe(true);
  });

  it('a schema newer than this package knows is a ConfigError, and the data stays', async () => {
    const file = newFile();
    const store = await openStore(file);
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    await store.close();
    raw(file, (db) => db.prepare("INSERT INTO bridle_schema_version VALUES (9, '2030-01-01T00:00:00.000Z')").run());
    const error = await configError(openStore(file));
    expect(error.message).toContain(`the store at ${file} has schema version 9, newer than version 8`);
    expect(error.message).toContain('Upgrade Bridle');
    raw(file, (db) => {
      expect(db.prepare('SELECT COUNT(*) AS n FROM bridle_run_events').get()).toEqual({ n: 1 });
      expect(db.prepare('SELECT MAX(version) AS v FROM bridle_schema_version').get()).toEqual({ v: 9 });
    });
  });

  it('upgrades a version 1 file in place: its runs, statuses and sessions answer as before', async () => {
    const file = newFile();
    raw(file, (db) => {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE bridle_schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      const [version1] = SQLITE_MIGRATIONS;
      for (const statement of version1?.statements ?? []) db.exec(statement);
      db.prepare("INSERT INTO bridle_schema_version VALUES (1, '2026-11-01T00:00:00.000Z')").run();
      const insert = db.prepare('INSERT INTO bridle_runs VALUES (?, ?, NULL, ?, ?, ?, 0)');
      insert.run('old-a', 'completed', 's1', '2026-11-01T00:00:01.000Z', '2026-11-01T00:00:01.000Z');
      insert.run('old-b', 'running', null, '2026-11-01T00:00:02.000Z', '2026-11-01T00:00:02.000Z');
      const session = db.prepare('INSERT INTO bridle_sessions VALUES (?, ?, 0, ?, ?)');
      for (const [id, time] of [
        ['s1', '2026-11-01T00:00:01.000Z'],
        ['s2', '2026-11-01T00:00:03.000Z'],
        ['s3', '2026-11-01T00:00:02.000Z'],
      ] as const) {
        session.run(id, JSON.stringify({ id, messages: [], createdAt: time, updatedAt: time }), time, time);
      }
    });
    const store = await openStore(file);
    try {
      expect((await store.listRuns({ status: 'completed' })).map((run) => run.runId)).toEqual(['old-a']);
      expect((await store.listRuns({ sessionId: 's1' })).map((run) => run.runId)).toEqual(['old-a']);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['old-b', 'old-a']);
      // The by-time indexes are ascending since version 7, read backwards: still newest first.
      expect((await store.listSessions()).map((session) => session.id)).toEqual(['s2', 's3', 's1']);
      expect(
        (await store.listSessions({ before: '2026-11-01T00:00:03.000Z', limit: 1 })).map((session) => session.id),
      ).toEqual(['s3']);
    } finally {
      await store.close();
    }
    raw(file, (db) => {
      expect(db.prepare('SELECT version FROM bridle_schema_version ORDER BY version').all()).toEqual([
        { version: 1 },
        { version: 2 },
        { version: 3 },
        { version: 4 },
        { version: 5 },
        { version: 6 },
        { version: 7 },
        { version: 8 },
      ]);
      const indexes = db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'bridle_runs' ORDER BY name")
        .all() as { name: string; sql: string | null }[];
      expect(indexes.filter((index) => index.sql !== null).map((index) => index.sql)).toEqual([
        'CREATE INDEX bridle_runs_by_session ON bridle_runs (session_key)',
        'CREATE INDEX bridle_runs_by_status ON bridle_runs (status)',
        'CREATE INDEX bridle_runs_by_tenant ON bridle_runs (tenant)',
        'CREATE INDEX bridle_runs_by_time ON bridle_runs (updated_at, run_id)',
      ]);
      expect(
        db.prepare("SELECT sql FROM sqlite_master WHERE name = 'bridle_sessions_by_time'").get() as { sql: string },
      ).toEqual({ sql: 'CREATE INDEX bridle_sessions_by_time ON bridle_sessions (updated_at, id)' });
    });
  });

  it('upgrades a second-release (version 2) file in place: its running run takes a lease and fences', async () => {
    const file = newFile();
    raw(file, (db) => {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE bridle_schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      for (const migration of SQLITE_MIGRATIONS.slice(0, 2)) {
        for (const statement of migration.statements) db.exec(statement);
        db.prepare("INSERT INTO bridle_schema_version VALUES (?, '2026-11-01T00:00:00.000Z')").run(migration.version);
      }
      db.prepare("INSERT INTO bridle_runs VALUES ('old', 'running', 'test:model', NULL, ?, ?, 0, NULL)").run(
        timeAt(0),
        timeAt(0),
      );
      db.prepare("INSERT INTO bridle_run_events VALUES ('old', 0, 'run_start', ?)").run(
        JSON.stringify(eventsOf('old').start(0)),
      );
    });
    const store = await openStore(file);
    try {
      expect((await store.listRuns()).map((run) => [run.runId, run.status, run.owner])).toEqual([
        ['old', 'running', undefined],
      ]);
      const taken = await store.acquireLease?.('old', { owner: 'upgraded', leaseMs: 60_000 });
      expect(taken).toMatchObject({ acquired: true, lease: { token: 1 } });
      await store.appendEvents('old', [eventsOf('old').modelStart(1)], { fencingToken: 1 });
      await store.acquireLease?.('old', { owner: 'next', leaseMs: 60_000, force: true });
      await expect(store.appendEvents('old', [eventsOf('old').modelEnd(2)], { fencingToken: 1 })).rejects.toMatchObject(
        { code: 'store_fenced' },
      );
      expect((await store.readRun('old'))?.events.map((event) => event.type)).toEqual(['run_start', 'model_start']);
    } finally {
      await store.close();
    }
  });

  it('upgrades a version 7 file: runs find their sessions by key, saved or not, and a deleted session keeps its runs', async () => {
    const file = newFile();
    const day = Date.UTC(2026, 11, 1);
    const session = (id: string, second: number) => ({
      id,
      messages: [{ role: 'user' as const, content: `hi ${id}` }],
      createdAt: timeAt(second, day),
      updatedAt: timeAt(second, day),
    });
    // As version 7 wrote them: 'saved' has a transcript and two runs, 'unsaved' a run only, 'alone' a transcript only.
    raw(file, (db) => {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE bridle_schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
      for (const migration of SQLITE_MIGRATIONS.slice(0, 7)) {
        for (const statement of migration.statements) db.exec(statement);
        db.prepare("INSERT INTO bridle_schema_version VALUES (?, '2026-12-01T00:00:00.000Z')").run(migration.version);
      }
      const run = db.prepare(
        'INSERT INTO bridle_runs (run_id, status, model, session_id, created_at, updated_at, last_sequence) ' +
          "VALUES (?, 'completed', 'test:model', ?, ?, ?, 1)",
      );
      const event = db.prepare(
        'INSERT INTO bridle_run_events (run_id, sequence, type, data, time) VALUES (?, ?, ?, ?, ?)',
      );
      let second = 0;
      for (const [runId, sessionId] of [
        ['r1', 'saved'],
        ['r2', 'unsaved'],
        ['r3', 'saved'],
      ] as const) {
        const events = eventsOf(runId, day + 10_000 * second++);
        const journal = [events.start(0, { sessionId }), events.end(1)];
        run.run(runId, sessionId, journal[0]?.timestamp, journal[1]?.timestamp);
        for (const written of journal) {
          event.run(runId, written.sequence, written.type, JSON.stringify(written), written.timestamp);
        }
      }
      const saved = db.prepare(
        'INSERT INTO bridle_sessions (id, data, message_count, created_at, updated_at) VALUES (?, ?, 1, ?, ?)',
      );
      for (const [id, at] of [
        ['saved', 1],
        ['alone', 2],
      ] as const) {
        const value = session(id, at);
        saved.run(id, JSON.stringify(value), value.createdAt, value.updatedAt);
      }
    });
    const store = await openStore(file);
    const runsOf = async (sessionId: string) => (await store.listRuns({ sessionId })).map((run) => run.runId).sort();
    try {
      expect(await runsOf('saved')).toEqual(['r1', 'r3']);
      expect(await runsOf('unsaved')).toEqual(['r2']);
      expect(await runsOf('alone')).toEqual([]);
      // A session id known from runs only is no session.
      expect((await store.listSessions()).map((listed) => listed.id)).toEqual(['alone', 'saved']);
      expect(await store.listSessions({ tenant: 'default' })).toHaveLength(2);
      expect(await store.getSession('unsaved')).toBeUndefined();
      expect(await store.deleteSession('unsaved')).toBe(false);
      // New runs join the old ones of their session, saved or not, and of a session saved before its first run.
      const next = eventsOf('r4', day + 60_000);
      await store.appendEvents('r4', [next.start(0, { sessionId: 'unsaved' }), next.end(1)]);
      const later = eventsOf('r5', day + 70_000);
      await store.appendEvents('r5', [later.start(0, { sessionId: 'alone' }), later.end(1)]);
      expect(await runsOf('unsaved')).toEqual(['r2', 'r4']);
      expect(await runsOf('alone')).toEqual(['r5']);
      await store.saveSession(session('unsaved', 3));
      expect((await store.getSession('unsaved'))?.messages).toEqual([{ role: 'user', content: 'hi unsaved' }]);
      expect((await store.listSessions()).map((listed) => listed.id)).toEqual(['unsaved', 'alone', 'saved']);
      // A deleted session is gone as a session; its runs stay listed by its id, and a new run with it joins them.
      expect(await store.deleteSession('saved')).toBe(true);
      expect(await store.deleteSession('saved')).toBe(false);
      expect(await store.getSession('saved')).toBeUndefined();
      expect((await store.listSessions()).map((listed) => listed.id)).toEqual(['unsaved', 'alone']);
      const again = eventsOf('r6', day + 80_000);
      await store.appendEvents('r6', [again.start(0, { sessionId: 'saved' }), again.end(1)]);
      expect(await runsOf('saved')).toEqual(['r1', 'r3', 'r6']);
      expect(await store.getSession('saved')).toBeUndefined();
      await store.saveSession(session('saved', 4));
      expect((await store.getSession('saved'))?.id).toBe('saved');
    } finally {
      await store.close();
    }
    raw(file, (db) => {
      // Each session id that runs name has one key, given in order of first use; a deleted session keeps no transcript.
      const keys = db.prepare('SELECT run_id, session_key FROM bridle_runs ORDER BY run_id').all() as {
        run_id: string;
        session_key: number;
      }[];
      const keyOf = Object.fromEntries(keys.map((row) => [row.run_id, row.session_key]));
      expect(keyOf.r1).toBe(keyOf.r3);
      expect(keyOf.r3).toBe(keyOf.r6);
      expect(keyOf.r2).toBe(keyOf.r4);
      expect(new Set(Object.values(keyOf)).size).toBe(3);
      expect(keyOf.r5).toBeGreaterThan(Math.max(keyOf.r1 ?? 0, keyOf.r2 ?? 0));
      expect(
        db.prepare('EXPLAIN QUERY PLAN SELECT run_id FROM bridle_runs WHERE session_key = ?').all(1),
      ).toContainEqual(expect.objectContaining({ detail: expect.stringContaining('bridle_runs_by_session') }));
    });
  });

  it('a deleted session that no run names leaves no row behind', async () => {
    const file = newFile();
    const store = await openStore(file);
    const now = new Date().toISOString();
    try {
      await store.saveSession({ id: 'once', messages: [], createdAt: now, updatedAt: now });
      expect(await store.deleteSession('once')).toBe(true);
      expect(await store.listSessions()).toEqual([]);
    } finally {
      await store.close();
    }
    raw(file, (db) => expect(db.prepare('SELECT COUNT(*) AS n FROM bridle_sessions').get()).toEqual({ n: 0 }));
  });

  it('a file that is not a database, or a folder, is a ConfigError naming it', async () => {
    const text = newFile();
    fs.writeFileSync(text, 'this is a text file, not SQLite '.repeat(100));
    const error = await configError(openStore(text));
    expect(error.message).toContain(`${text} is not a SQLite database or is damaged`);
    expect(fs.readFileSync(text, 'utf8')).toContain('this is a text file');

    const folder = path.join(root, 'a-folder');
    fs.mkdirSync(folder);
    expect((await configError(openStore(`sqlite:${folder}`))).message).toContain(`cannot open SQLite file ${folder}`);
  });

  it('a file locked by another connection is a ConfigError at open after busyTimeoutMs', async () => {
    const file = newFile();
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const error = await configError(openStore(file, { busyTimeoutMs: 50 }));
      expect(error.message).toContain(`SQLite file ${file} is locked by another connection (waited 50 ms)`);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    await (await openStore(file)).close();
  });

  it('an append while another connection holds the lock fails as unavailable, writes nothing, and a retry works', async () => {
    const file = newFile();
    const store = await openStore(file, { busyTimeoutMs: 50 });
    const e = eventsOf('r1');
    await store.appendEvents('r1', [e.start(0)]);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const batch = stepEvents('r1', 1, 1);
    try {
      const error = await store.appendEvents('r1', batch).catch((reason: unknown) => reason);
      expect(StoreError.isInstance(error) && error.code).toBe('store_unavailable');
      expect((error as Error).message).toContain('is locked by another connection');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect((await store.readRun('r1'))?.events).toHaveLength(1);
    await store.appendEvents('r1', batch);
    expect((await store.readRun('r1'))?.events).toHaveLength(5);
    await store.close();
  });

  it("an append sees another connection's writes since its own last one: their events, their lease", async () => {
    const file = newFile();
    const mine = await openStore(file);
    const other = await openStore(file);
    const e = eventsOf('r1');
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'appended',
        (reason: unknown) => (StoreError.isInstance(reason) ? reason.code : String(reason)),
      );
    await mine.appendEvents('r1', [e.start(0)]);
    await mine.appendEvents('r1', [e.modelStart(1)]);
    await other.appendEvents('r1', [e.modelEnd(2, 1, 'from other')]);
    // The same event again is a retry that writes nothing; other content at that sequence is a conflict.
    expect(await code(mine.appendEvents('r1', [e.modelEnd(2, 1, 'from other')]))).toBe('appended');
    expect(await code(mine.appendEvents('r1', [e.modelEnd(2, 1, 'from mine')]))).toBe('store_conflict');
    await mine.appendEvents('r1', [e.toolStart(3)]);
    expect((await other.readRun('r1'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2, 3]);

    const lease = await mine.acquireLease?.('r2', { owner: 'mine', leaseMs: 60_000 });
    expect(lease?.acquired).toBe(true);
    const f = eventsOf('r2');
    await mine.appendEvents('r2', [f.start(0)], { fencingToken: 1 });
    await mine.appendEvents('r2', [f.modelStart(1)], { fencingToken: 1 });
    const taken = await other.acquireLease?.('r2', { owner: 'other', leaseMs: 60_000, force: true });
    expect(taken?.acquired && taken.lease.token).toBe(2);
    expect(await code(mine.appendEvents('r2', [f.modelEnd(2)], { fencingToken: 1 }))).toBe('store_fenced');
    await other.appendEvents('r2', [f.modelEnd(2)], { fencingToken: 2 });
    expect((await mine.readRun('r2'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2]);
    await mine.close();
    await other.close();
  });

  it('group commit: writes asked for at once commit together; one that conflicts rejects alone', async () => {
    const file = newFile();
    const store = await openStore(file);
    const [a, b, c] = [eventsOf('a'), eventsOf('b'), eventsOf('c')];
    await store.appendEvents('b', [b.start(0)]);
    const session = { id: 's1', messages: [], createdAt: timeAt(0), updatedAt: timeAt(0) };
    // Asked for in one turn of the event loop: one transaction, each write in its own savepoint.
    const outcomes = await Promise.allSettled([
      store.appendEvents('a', [a.start(0), a.modelStart(1)]),
      // 'b' has sequence 0 journaled with other content: a conflict, for this write only.
      store.appendEvents('b', [b.start(0, { model: 'other:model' }), b.modelStart(1)]),
      store.appendEvents('c', [c.start(0)]),
      store.saveSession(session),
      store.deleteSession('missing'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const conflict = (outcomes[1] as PromiseRejectedResult).reason;
    expect(StoreError.isInstance(conflict) && conflict.code).toBe('store_conflict');
    expect((outcomes[4] as PromiseFulfilledResult<boolean>).value).toBe(false);
    // Nothing of the refused write landed (its savepoint rolled back); the others did.
    expect((await store.readRun('b'))?.events).toHaveLength(1);
    expect((await store.readRun('a'))?.events).toHaveLength(2);
    expect((await store.readRun('c'))?.events).toHaveLength(1);
    expect((await store.getSession('s1'))?.id).toBe('s1');
    // The batch ran twice (without savepoints, rolled back at the conflict, then with them): what the first
    // run kept of 'a' and 'c' was dropped with its rollback, and their next appends read the committed rows.
    await store.appendEvents('a', [a.modelEnd(2)]);
    await store.appendEvents('c', [c.modelStart(1)]);
    expect((await store.readRun('a'))?.events.map((event) => event.sequence)).toEqual([0, 1, 2]);
    expect((await store.readRun('c'))?.events.map((event) => event.sequence)).toEqual([0, 1]);
    // A batch in which nothing throws commits every write.
    const both = await Promise.all([store.appendEvents('a', [a.end(3)]), store.appendEvents('c', [c.end(2)])]);
    expect(both).toEqual([undefined, undefined]);
    expect((await store.listRuns()).map((run) => [run.runId, run.status]).sort()).toEqual([
      ['a', 'completed'],
      ['b', 'running'],
      ['c', 'completed'],
    ]);
    await store.close();
  });

  it('a damaged totals column counts as none: listRuns still answers, and the next run_end rewrites it', async () => {
    const file = newFile();
    const store = await openStore(file);
    const [a, b] = [eventsOf('a'), eventsOf('b')];
    await store.appendEvents('a', [a.start(0), a.end(1, 'awaiting_approval')]);
    await store.appendEvents('b', [b.start(0), b.end(1)]);
    raw(file, (db) => db.prepare("UPDATE bridle_runs SET totals = '{not json' WHERE run_id = 'a'").run());
    const rows = await store.listRuns();
    expect(rows.map((row) => row.runId).sort()).toEqual(['a', 'b']);
    expect(rows.find((row) => row.runId === 'a')).not.toHaveProperty('steps');
    await store.appendEvents('a', [a.start(2, { resumed: true }), a.end(3)]);
    expect((await store.listRuns()).find((row) => row.runId === 'a')).toMatchObject({ status: 'completed', steps: 1 });
    await store.close();
  });

  it('close() commits the writes asked for before it; later calls fail as closed', async () => {
    const file = newFile();
    const store = await openStore(file);
    const e = eventsOf('r1');
    const pending = store.appendEvents('r1', [e.start(0), e.modelStart(1)]);
    await store.close();
    await pending;
    await expect(store.appendEvents('r1', [e.modelEnd(2)])).rejects.toThrow(/closed/);
    const reopened = await openStore(file);
    expect((await reopened.readRun('r1'))?.events).toHaveLength(2);
    await reopened.close();
  });

  it('a read-only file is a ConfigError at open naming the fix; its data is untouched', async () => {
    const file = newFile();
    const store = await openStore(file);
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    await store.close();
    fs.chmodSync(file, 0o444);
    // Root ignores file modes but not the immutable attribute (ext4 and most Linux file systems).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) execFileSync('chattr', ['+i', file]);
    try {
      const error = await configError(openStore(file));
      expect(error.message).toContain(`SQLite file ${file} is read-only`);
      expect(error.message).toContain('--store / BRIDLE_STORE');
    } finally {
      if (asRoot) execFileSync('chattr', ['-i', file]);
    }
    fs.chmodSync(file, 0o644);
    const again = await openStore(file);
    expect((await again.readRun('r1'))?.events).toHaveLength(1);
    await again.close();
  });
});

describe('sqlite: several processes on one file', () => {
  it('two child processes and this one append at once: nothing lost, nothing corrupt, shared batches once', {
    timeout: 180_000,
  }, async () => {
    const file = newFile();
    const workers = ['alpha', 'beta'].map((prefix) =>
      startChild('append-worker.mts', [`sqlite:${file}`, prefix, '4', '6']),
    );
    await Promise.all(workers.map((worker) => worker.waitFor((line) => line === 'ready')));
    const store = await openStore(file, { busyTimeoutMs: 60_000 });
    for (const worker of workers) worker.process.stdin?.end('go\n');
    // This process writes its own runs meanwhile.
    for (let run = 0; run < 4; run++) {
      const runId = `main-${run}`;
      const e = eventsOf(runId);
      await store.appendEvents(runId, [e.start(0)]);
      for (let step = 1; step <= 6; step++) await store.appendEvents(runId, stepEvents(runId, step, step * 4 - 3));
      await store.appendEvents(runId, [e.end(25)]);
    }
    const results = await Promise.all(workers.map((worker) => worker.exited));
    for (const result of results) {
      expect(result.stderr).toBe('');
      expect(result.lines.at(-1)).toBe('done');
    }
    const completed = await store.listRuns({ status: 'completed', limit: 100 });
    expect(completed.map((run) => run.runId).sort()).toEqual(
      ['alpha', 'beta', 'main']
        .flatMap((prefix) => [0, 1, 2, 3].map((run) => `${prefix}-${run}`))
        .concat('shared')
        .sort(),
    );
    for (const { runId } of completed) {
      const run = await store.readRun(runId);
      const length = runId.startsWith('main') ? 26 : 32;
      expect(run?.events.map((event) => event.sequence)).toEqual(Array.from({ length }, (_, index) => index));
    }
    raw(file, (db) => expect(db.pragma('integrity_check', { simple: true })).toBe('ok'));
    await store.close();
  });

  it('an append is durable once it resolved: SIGKILL of the writer loses no acknowledged event, no half batch', {
    timeout: 120_000,
  }, async () => {
    const file = newFile();
    const worker = startChild('append-worker.mts', [`sqlite:${file}`, 'killed', '50', '20']);
    await worker.waitFor((line) => line === 'ready');
    worker.process.stdin?.end('go\n');
    await worker.waitFor((line) => line.startsWith('acked killed-2 '));
    worker.process.kill('SIGKILL');
    const { signal, lines } = await worker.exited;
    expect(signal).toBe('SIGKILL');
    const acked = new Map<string, number>();
    for (const line of lines.filter((entry) => entry.startsWith('acked '))) {
      const [, runId, sequence] = line.split(' ');
      acked.set(runId as string, Number(sequence));
    }
    const store = await openStore(file);
    for (const [runId, last] of acked) {
      const sequences = (await store.readRun(runId))?.events.map((event) => event.sequence) ?? [];
      // Every acknowledged event is there; at most one more batch (in flight at the kill), and only whole.
      expect(sequences.slice(0, last + 1)).toEqual(Array.from({ length: last + 1 }, (_, index) => index));
      expect([0, 5, 1]).toContain(sequences.length - (last + 1));
      expect((sequences.length - 1) % 5 === 0 || sequences.at(-1) === 101).toBe(true);
    }
    raw(file, (db) => expect(db.pragma('integrity_check', { simple: true })).toBe('ok'));
    await store.close();
  });
});
