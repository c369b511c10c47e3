/**
 * What ownership costs a durable run, and how close Bridle's Postgres append is to the floor. Interleaved
 * rounds of a 200-step run (one validated `add` call per step, an instant model), each round running every
 * variant once, in turn:
 * - no store (the base every other figure is measured over; first in each round, the others in a seeded shuffle);
 * - SQLite and Postgres with ownership (the default: a lease taken per segment, every append fenced);
 * - SQLite and Postgres without ownership (the same store with its lease methods hidden: appends unfenced);
 * - Postgres "bare floor": an append-only journal on the same server, same durability (synchronous_commit
 *   off), one INSERT per append and nothing else (issue #35 target 1's floor), its statement unnamed (parsed
 *   and planned on every append);
 * - the same floor with its INSERT prepared by name (parsed and planned once per connection, as the store's
 *   statements are): the stricter floor of the two.
 * Prints, per variant, the extra µs per step over no store: minimum and median of the rounds, and the median
 * extra CPU time of this process (SQLite works in-process, so its CPU figure is the one least swayed by other
 * load; Postgres' server-side work is not in it), then the ratios (fenced / unfenced: ownership's cost;
 * Postgres fenced / floor: target <= 1.3) and the load average. On a loaded machine wall-time medians of a
 * few rounds swing by +-40% from run to run: pass more rounds.
 * Where fencing's cost goes (SQLite): per step, the fenced and the unfenced run execute the same statements
 * (one write transaction per append: the run's row read with its journal's last sequence, the events'
 * INSERTs); fencing adds a lease taken and given up per run (two write transactions per 200-step run) and
 * one integer comparison per append.
 * Run: pnpm bench fenced-append [rounds] (BRIDLE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runAgent } from '../../packages/core/src/index';
import type { Model, ModelResponse, RunEvent, Store, Tool } from '../../packages/protocol/src/index';
import { openStore } from '../../packages/store/src/index';

const STEPS = 200;
/** Interleaved rounds: the first argument (`pnpm bench fenced-append 15`), 7 by default. */
const ROUNDS = Number(process.argv[2] ?? 7);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
  throw new Error(`rounds must be a positive integer, got ${process.argv[2]}`);

const addTool: Tool = {
  name: 'add',
  description: 'Add two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  readOnly: true,
  execute: (args) => (args as { a: number; b: number }).a + (args as { a: number; b: number }).b,
};

function instantModel(): Model {
  let index = 0;
  return {
    id: 'bench',
    async generate(): Promise<ModelResponse> {
      const step = index++;
      if (step >= STEPS) return { content: 'done' };
      return { content: '', toolCalls: [{ id: `c${step}`, name: 'add', arguments: { a: step, b: 1 } }] };
    },
  };
}

/** The store without its lease methods: what a run journals like without ownership (no lease, no token). */
function withoutOwnership(store: Store): Store {
  return {
    appendEvents: (runId, events) => store.appendEvents(runId, events),
    readRun: (runId) => store.readRun(runId),
    listRuns: (query) => store.listRuns(query),
    getSession: (id) => store.getSession(id),
    saveSession: (session) => store.saveSession(session),
    deleteSession: (id) => store.deleteSession(id),
    listSessions: (query) => store.listSessions(query),
    close: () => store.close(),
    // Its signal channel stays (steering and cancel make each model and tool call race the run's scope):
    // only ownership differs between the fenced and the unfenced variant.
    ...(store.listenRunSignals && {
      listenRunSignals: (runId, listener) => store.listenRunSignals?.(runId, listener) as Promise<() => void>,
    }),
    ...(store.sendRunSignal && {
      sendRunSignal: (runId, signal) => store.sendRunSignal?.(runId, signal) as Promise<void>,
    }),
  };
}

/**
 * The floor: an append-only journal, one INSERT per append (synchronous_commit off), nothing else; `prepared`:
 * its INSERT named, so each pooled connection parses and plans it once.
 */
async function bareJournal(url: string, schema: string, prepared = false): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max: 4, options: '-c synchronous_commit=off' });
  const table = `"${schema}".${prepared ? 'bare_prepared_events' : 'bare_events'}`;
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${table} (run_id text, sequence integer, data text, PRIMARY KEY (run_id, sequence))`,
  );
  const unused = async (): Promise<never> => {
    throw new Error('not used');
  };
  return {
    async appendEvents(runId: string, events: RunEvent[]) {
      await pool.query({
        ...(prepared && { name: 'bare_append' }),
        text: `INSERT INTO ${table} SELECT $1, * FROM unnest($2::integer[], $3::text[])`,
        values: [runId, events.map((event) => event.sequence), events.map((event) => JSON.stringify(event))],
      });
    },
    readRun: async () => undefined,
    listRuns: unused,
    getSession: unused,
    saveSession: unused,
    deleteSession: unused,
    listSessions: unused,
    close: () => pool.end(),
  };
}

/** One run: wall µs per step, and this process's CPU µs per step (user + system; SQLite works in-process). */
async function microsPerStep(store: Store | undefined): Promise<{ wall: number; cpu: number }> {
  const start = performance.now();
  const startCpu = process.cpuUsage();
  const result = await runAgent({
    model: instantModel(),
    tools: [addTool],
    prompt: 'go',
    maxSteps: STEPS + 1,
    ...(store === undefined ? {} : { store, runId: randomUUID() }),
  });
  if (result.steps !== STEPS + 1) throw new Error(`unexpected: ${result.status} after ${result.steps} steps`);
  const used = process.cpuUsage(startCpu);
  return { wall: ((performance.now() - start) * 1000) / (STEPS + 1), cpu: (used.user + used.system) / (STEPS + 1) };
}

/** A seeded shuffle (the same orders in every run of the bench). */
let seed = 35;
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const other = seed % (index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] as number;

const folder = mkdtempSync(join(tmpdir(), 'bridle-bench-fenced-'));
const postgresUrl = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_fenced_${process.pid}`;
const variants: { label: string; store: Store | undefined }[] = [{ label: 'no store', store: undefined }];
const sqlite = await openStore(`sqlite:${join(folder, 'bench.db')}`);
variants.push({ label: 'sqlite fenced', store: sqlite }, { label: 'sqlite unfenced', store: withoutOwnership(sqlite) });
let postgres: Store | undefined;
let bare: Store | undefined;
let barePrepared: Store | undefined;
try {
  postgres = await openStore(postgresUrl, { schema, connectTimeoutMs: 3000 });
  bare = await bareJournal(postgresUrl, schema);
  barePrepared = await bareJournal(postgresUrl, schema, true);
  variants.push(
    { label: 'postgres fenced', store: postgres },
    { label: 'postgres unfenced', store: withoutOwnership(postgres) },
    { label: 'postgres bare floor', store: bare },
    { label: 'postgres bare floor, prepared', store: barePrepared },
  );
} catch (error) {
  console.log(`postgres: skipped (${(error as Error).message.split('\n')[0]})`);
}

try {
  // Warm-up: JIT the loop, the stores and their prepared statements.
  for (const variant of variants) await microsPerStep(variant.store);
  const times = new Map<string, number[]>(variants.map((variant) => [variant.label, []]));
  const cpu = new Map<string, number[]>(variants.map((variant) => [variant.label, []]));
  const record = (label: string, run: { wall: number; cpu: number }) => {
    times.get(label)?.push(run.wall);
    cpu.get(label)?.push(run.cpu);
  };
  const load: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    load.push(os.loadavg()[0] as number);
    // No store first (each round's base), then the others shuffled (seeded): a rotation kept their cyclic
    // order, so "sqlite fenced" always ran right after the Postgres floor and paid for its garbage, and
    // "sqlite unfenced" always right after it. Shuffled, a WAL checkpoint or a GC falls on each alike.
    record('no store', await microsPerStep(undefined));
    for (const variant of shuffled(variants.slice(1))) record(variant.label, await microsPerStep(variant.store));
  }
  const base = times.get('no store') as number[];
  const baseCpu = cpu.get('no store') as number[];
  // Each round's extra over that round's no-store run: the variants share the machine's load of the moment.
  const extra = (label: string) =>
    (times.get(label) as number[]).map((value, index) => value - (base[index] as number));
  const extraCpu = (label: string) =>
    (cpu.get(label) as number[]).map((value, index) => value - (baseCpu[index] as number));
  console.log(
    `no store: ${Math.min(...base).toFixed(1)} µs/step min, ${median(base).toFixed(1)} median, CPU ${median(baseCpu).toFixed(1)} median`,
  );
  for (const variant of variants.slice(1)) {
    const values = extra(variant.label);
    console.log(
      `${variant.label}: +${Math.min(...values).toFixed(1)} µs/step min, +${median(values).toFixed(1)} median, ` +
        `CPU of this process +${median(extraCpu(variant.label)).toFixed(1)} median over no store (${ROUNDS} interleaved rounds of ${STEPS + 1} steps)`,
    );
  }
  const ratio = (a: string, b: string) => {
    if (!times.has(a) || !times.has(b)) return;
    const [x, y] = [extra(a), extra(b)];
    const [cx, cy] = [extraCpu(a), extraCpu(b)];
    console.log(
      `${a} / ${b}: ${(Math.min(...x) / Math.min(...y)).toFixed(2)}x (min), ${(median(x) / median(y)).toFixed(2)}x (median), ` +
        `${(median(cx) / median(cy)).toFixed(2)}x (this process's CPU, median)`,
    );
  };
  ratio('sqlite fenced', 'sqlite unfenced');
  ratio('postgres fenced', 'postgres unfenced');
  ratio('postgres fenced', 'postgres bare floor');
  ratio('postgres fenced', 'postgres bare floor, prepared');
  console.log(
    `load average (1 min) during the rounds: min ${Math.min(...load).toFixed(1)}, max ${Math.max(...load).toFixed(1)}`,
  );
} finally {
  await sqlite.close();
  await postgres?.close();
  await bare?.close();
  await barePrepared?.close();
  rmSync(folder, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: postgresUrl });
  await client
    .connect()
    .then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
    .catch(() => {})
    .finally(() => client.end());
}
