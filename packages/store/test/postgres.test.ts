import net from 'node:net';
import type { Store } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, StoreError } from '../src/index';
import { startChild } from './child';
import { eventsOf, stepEvents } from './events';
import {
  admin,
  dropSchemas,
  newSchema,
  openInNewSchema,
  POSTGRES_URL,
  postgresProblem,
  reopenSchema,
  schemaAtVersion,
  schemaFor,
} from './postgres-target';
import { storeConformance } from './store-conformance';
import { startTcpProxy } from './tcp-proxy';

const problem = await postgresProblem();
if (problem !== undefined && process.env.CI !== 'true') {
  console.warn(
    `SKIPPED @bridle/store Postgres tests: no Postgres at ${POSTGRES_URL} (${problem}); set BRIDLE_TEST_POSTGRES_URL`,
  );
}
const suite = problem === undefined || process.env.CI === 'true' ? describe : describe.skip;

it.runIf(problem !== undefined && process.env.CI === 'true')('Postgres is reachable (required when CI=true)', () => {
  throw new Error(`no Postgres at ${POSTGRES_URL}: ${problem}; start it or set BRIDLE_TEST_POSTGRES_URL`);
});

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ConfigError.isInstance(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

afterAll(async () => {
  if (problem === undefined) await dropSchemas();
});

if (problem === undefined || process.env.CI === 'true') {
  storeConformance('postgres', {
    open: (options) => openInNewSchema(options),
    reopen: (store) => reopenSchema(store),
    async corruptEvent(store, runId, sequence, text) {
      await admin(`UPDATE "${schemaFor(store)}".bridle_run_events SET data = $1 WHERE run_id = $2 AND sequence = $3`, [
        text,
        runId,
        sequence,
      ]);
    },
    async corruptSession(store, id, text) {
      await admin(`UPDATE "${schemaFor(store)}".bridle_sessions SET data = $1 WHERE id = $2`, [text, id]);
    },
  });
}

suite('postgres: opening', () => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('?schema= in the URL picks the schema; the schema option overrides it; a bad name is a ConfigError', async () => {
    const fromUrl = newSchema();
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('schema', fromUrl);
    const store = await openStore(url.href);
    stores.push(store);
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    expect(await admin(`SELECT run_id FROM "${fromUrl}".bridle_runs`)).toEqual([{ run_id: 'r1' }]);

    const fromOption = newSchema();
    stores.push(await openStore(url.href, { schema: fromOption }));
    expect(await admin(`SELECT MAX(version) AS version FROM "${fromOption}".bridle_schema_version`)).toEqual([
      { version: 5 },
    ]);

    const error = await configError(openStore(POSTGRES_URL, { schema: 'bad"; DROP TABLE x; --' }));
    expect(error.message).toContain('is not a plain identifier');
  });

  it('appends commit without waiting for the WAL fsync by default, and with it under synchronous=full', async () => {
    const settingOf = async (url: string, options?: { synchronous?: 'full' | 'normal' }) => {
      const schema = newSchema();
      const store = await openStore(url, { schema, ...options });
      stores.push(store);
      // A trigger notes the transaction's synchronous_commit when an event row is written.
      await admin(`CREATE TABLE "${schema}".seen (setting text)`);
      await admin(
        `CREATE FUNCTION "${schema}".note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO "${schema}".seen VALUES (current_setting('synchronous_commit')); RETURN NEW; END $$`,
      );
      await admin(
        `CREATE TRIGGER note AFTER INSERT ON "${schema}".bridle_run_events FOR EACH ROW EXECUTE FUNCTION "${schema}".note()`,
      );
      await store.appendEvents('r1', [eventsOf('r1').start(0)]);
      expect((await store.readRun('r1'))?.events).toHaveLength(1);
      return (await admin(`SELECT setting FROM "${schema}".seen`)) as { setting: string }[];
    };
    const server = (await admin('SHOW synchronous_commit')) as { synchronous_commit: string }[];
    expect(await settingOf(POSTGRES_URL)).toEqual([{ setting: 'off' }]);
    const full = new URL(POSTGRES_URL);
    full.searchParams.set('synchronous', 'full');
    expect(await settingOf(full.href)).toEqual([{ setting: server[0]?.synchronous_commit }]);
    expect(await settingOf(full.href, { synchronous: 'normal' })).toEqual([{ setting: 'off' }]);
  });

  it('an owner’s fenced append is one round trip (one statement)', async () => {
    const target = new URL(POSTGRES_URL);
    let roundTrips = 0;
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, (type) => {
      if (type === 'Q' || type === 'S') roundTrips += 1;
    });
    const url = new URL(POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const store = await openStore(url.href, { schema: newSchema() });
    try {
      const taken = await store.acquireLease?.('r1', { owner: 'alpha', leaseMs: 60_000 });
      const token = taken?.acquired ? taken.lease.token : 0;
      roundTrips = 0;
      await store.appendEvents('r1', [eventsOf('r1').start(0)], { fencingToken: token });
      for (let step = 1; step <= 4; step++) {
        await store.appendEvents('r1', stepEvents('r1', step, 1 + (step - 1) * 4), { fencingToken: token });
      }
      expect(roundTrips).toBe(5);
      expect((await store.readRun('r1'))?.events).toHaveLength(17);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('upgrades a second-release (version 2) schema in place: its running run takes a lease and fences', async () => {
    const schema = await schemaAtVersion(2, '2026-11-01T00:00:00.000Z');
    await admin(`INSERT INTO "${schema}".bridle_runs VALUES ('old', 'running', 'test:model', NULL, $1, $1, 0, NULL)`, [
      eventsOf('old').start(0).timestamp,
    ]);
    await admin(`INSERT INTO "${schema}".bridle_run_events VALUES ('old', 0, 'run_start', $1)`, [
      JSON.stringify(eventsOf('old').start(0)),
    ]);
    const store = await openStore(POSTGRES_URL, { schema });
    stores.push(store);
    expect((await store.listRuns()).map((run) => [run.runId, run.status, run.owner])).toEqual([
      ['old', 'running', undefined],
    ]);
    expect(await store.acquireLease?.('old', { owner: 'upgraded', leaseMs: 60_000 })).toMatchObject({
      acquired: true,
      lease: { token: 1 },
    });
    await store.appendEvents('old', [eventsOf('old').modelStart(1)], { fencingToken: 1 });
    await store.acquireLease?.('old', { owner: 'next', leaseMs: 60_000, force: true });
    await expect(store.appendEvents('old', [eventsOf('old').modelEnd(2)], { fencingToken: 1 })).rejects.toMatchObject({
      code: 'store_fenced',
    });
    expect((await store.readRun('old'))?.events.map((event) => event.type)).toEqual(['run_start', 'model_start']);
  });

  it('many processes opening one new schema at once migrate it once (advisory lock)', async () => {
    const schema = newSchema();
    const opened = await Promise.all(Array.from({ length: 8 }, () => openStore(POSTGRES_URL, { schema, poolSize: 2 })));
    stores.push(...opened);
    expect(await admin(`SELECT version FROM "${schema}".bridle_schema_version`)).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
    ]);
    await Promise.all(opened.map((store, index) => store.appendEvents(`r${index}`, [eventsOf(`r${index}`).start(0)])));
    expect(await opened[0]?.listRuns()).toHaveLength(8);
  });

  it('a schema newer than this package knows is a ConfigError, and the data stays', async () => {
    const store = await openInNewSchema();
    await store.appendEvents('r1', [eventsOf('r1').start(0)]);
    await store.close();
    const schema = schemaFor(store);
    await admin(`INSERT INTO "${schema}".bridle_schema_version VALUES (9, '2030-01-01T00:00:00.000Z')`);
    const error = await configError(reopenSchema(store));
    expect(error.message).toContain('has schema version 9, newer than version 5');
    expect(error.message).toContain(`(schema ${schema})`);
    expect(await admin(`SELECT COUNT(*)::int AS n FROM "${schema}".bridle_run_events`)).toEqual([{ n: 1 }]);
  });

  it('an unreachable server is a ConfigError naming the redacted URL and the fix', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await configError(openStore(`postgres://bridle:hunter2@127.0.0.1:${port}/test?sslpassword=s3cret`));
    expect(error.message).toContain(
      `cannot reach Postgres at postgres://bridle:***@127.0.0.1:${port}/test?sslpassword=***`,
    );
    expect(error.message).toContain('Start the server or fix the host and port');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('s3cret');
  });

  it('a server that never answers is a ConfigError after connectTimeoutMs, not a hang', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const error = await configError(
        openStore(`postgresql://postgres@127.0.0.1:${port}/test`, { connectTimeoutMs: 300 }),
      );
      expect(error.message).toContain(
        `cannot reach Postgres at postgresql://postgres@127.0.0.1:${port}/test (waited at most 300 ms)`,
      );
      expect(error.message).toMatch(/timeout/i);
    } finally {
      silent.close();
    }
    const viaUrl = await configError(openStore(`postgres://postgres@127.0.0.1:${port}/test?connect_timeout=0.2`));
    expect(viaUrl.message).toContain('(waited at most 200 ms)');
  });

  it('a database that does not exist is a ConfigError saying to create it', async () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = '/bridle_no_such_database';
    const error = await configError(openStore(url.href));
    expect(error.message).toContain('Create the database (createdb <name>)');
  });
});

suite('postgres: many writers', () => {
  it('stores in this process and two child processes append at once: nothing lost, shared batches once', {
    timeout: 180_000,
  }, async () => {
    const schema = newSchema();
    const url = new URL(POSTGRES_URL);
    url.searchParams.set('schema', schema);
    const workers = ['alpha', 'beta'].map((prefix) => startChild('append-worker.mts', [url.href, prefix, '3', '6']));
    await Promise.all(workers.map((worker) => worker.waitFor((line) => line === 'ready')));
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(url.href, { poolSize: 3 })));
    for (const worker of workers) worker.process.stdin?.end('go\n');
    await Promise.all(
      stores.flatMap((store, writer) =>
        [0, 1, 2].map(async (run) => {
          const runId = `w${writer}-${run}`;
          const e = eventsOf(runId);
          await store.appendEvents(runId, [e.start(0)]);
          for (let step = 1; step <= 6; step++) await store.appendEvents(runId, stepEvents(runId, step, step * 4 - 3));
          await store.appendEvents(runId, [e.end(25)]);
        }),
      ),
    );
    for (const result of await Promise.all(workers.map((worker) => worker.exited))) {
      expect(result.stderr).toBe('');
      expect(result.lines.at(-1)).toBe('done');
    }
    const [store] = stores as [Store];
    const runs = await store.listRuns({ limit: 100 });
    expect(runs).toHaveLength(4 * 3 + 2 * 3 + 1);
    for (const { runId, status } of runs) {
      expect(status).toBe('completed');
      const length = runId.startsWith('w') ? 26 : 32;
      const run = await store.readRun(runId);
      expect(run?.events.map((event) => event.sequence)).toEqual(Array.from({ length }, (_, index) => index));
    }
    await Promise.all(stores.map((each) => each.close()));
  });

  it('a lost connection fails an operation as unavailable, writes nothing, and the store recovers', async () => {
    const target = new URL(POSTGRES_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const schema = newSchema();
    const url = new URL(POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const store = await openStore(url.href, { schema, connectTimeoutMs: 2000 });
    try {
      const e = eventsOf('r1');
      await store.appendEvents('r1', [e.start(0)]);
      await proxy.cut();
      const error = await store.appendEvents('r1', stepEvents('r1', 1, 1)).catch((reason: unknown) => reason);
      expect(StoreError.isInstance(error) && error.code).toBe('store_unavailable');
      expect((error as Error).message).toContain('a retried appendEvents is safe');
      const read = await store.readRun('r1').catch((reason: unknown) => reason);
      expect(StoreError.isInstance(read) && read.code).toBe('store_unavailable');
      await proxy.restore();
      expect((await store.readRun('r1'))?.events).toHaveLength(1);
      await store.appendEvents('r1', stepEvents('r1', 1, 1));
      expect((await store.readRun('r1'))?.events).toHaveLength(5);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
