/**
 * What a durable run costs: µs per step of a 200-step run (one validated `add` call per step, an instant
 * model) with no store, with `memory:`, with SQLite (the apps' default, synchronous=normal) and with Postgres
 * (BRIDLE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable).
 * With a store every event is journaled and a model response or tool result is durable before the loop goes
 * on. Reports the fastest and the median round, and each store's extra cost per step over no store.
 * CPU time (user + system of this process) is printed beside wall time: on a loaded machine wall time is
 * mostly waiting for a core. Run it as `nice -n -19 pnpm bench durable` (as root) to take the quiet-machine figure.
 * Targets (issue "Durable runs"): SQLite adds at most 250 µs per step; no store adds nothing measurable
 * (compare "no store" with `pnpm bench core`, A). Issue "Speed to the floor" (2): SQLite's extra cost per step
 * at most 1.8x the bare SQLite journal's (the floor: the same loop journaling into a bare append-only table in
 * a file with Bridle's default durability, WAL and synchronous=normal, one INSERT transaction per append).
 * Rounds are interleaved (one run of each target per round), so load that comes and goes touches all alike.
 * Run: pnpm bench durable
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../packages/core/src/index';
import type { Model, ModelResponse, RunEvent, Store, Tool } from '../../packages/protocol/src/index';
import { openStore } from '../../packages/store/src/index';

const STEPS = 200;

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
  const responses: ModelResponse[] = Array.from({ length: STEPS }, (_, step) => ({
    content: '',
    toolCalls: [{ id: `c${step}`, name: 'add', arguments: { a: step, b: 1 } }],
  }));
  let index = 0;
  return {
    id: 'bench',
    async generate() {
      return responses[index++] ?? { content: 'done' };
    },
  };
}

/**
 * The floor of a SQLite journal: an append-only table of JSON lines in a WAL file with synchronous=normal (as
 * Bridle's default), each append one transaction of prepared INSERTs. No checks, no runs table, no reads.
 */
function bareSqliteJournal(file: string): Store {
  const Database = createRequire(join(process.cwd(), 'packages', 'store', 'package.json'))('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE journal (run_id TEXT NOT NULL, sequence INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, sequence))',
  );
  const insert = db.prepare('INSERT INTO journal (run_id, sequence, data) VALUES (?, ?, ?)');
  const append = db.transaction((runId: string, events: RunEvent[]) => {
    for (const event of events) insert.run(runId, event.sequence, JSON.stringify(event));
  });
  return {
    async appendEvents(runId: string, events: RunEvent[]) {
      append(runId, events);
    },
    async readRun() {
      return undefined;
    },
    async close() {
      db.close();
    },
  } as unknown as Store;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface PerStep {
  fastest: number;
  median: number;
  /** Median CPU time of this process (user + system) per step: less swayed by other load than wall time. */
  cpu: number;
}

/** One run of STEPS steps: wall and CPU µs per step. */
async function oneRun(store: Store | undefined): Promise<{ wall: number; cpu: number }> {
  const start = performance.now();
  const startCpu = process.cpuUsage();
  const result = await runAgent({
    model: instantModel(),
    tools: [addTool],
    prompt: 'go',
    maxSteps: STEPS,
    ...(store === undefined ? {} : { store, runId: randomUUID() }),
  });
  const wall = ((performance.now() - start) * 1000) / STEPS;
  const used = process.cpuUsage(startCpu);
  if (result.steps !== STEPS) throw new Error(`unexpected: ${result.status} after ${result.steps} steps`);
  return { wall, cpu: (used.user + used.system) / STEPS };
}

async function perStep(store: Store | undefined, rounds: number): Promise<PerStep> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const run = await oneRun(store);
    times.push(run.wall);
    cpu.push(run.cpu);
  }
  return { fastest: Math.min(...times), median: median(times), cpu: median(cpu) };
}

const folder = mkdtempSync(join(tmpdir(), 'bridle-bench-durable-'));
const postgresUrl = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_durable_${process.pid}`;
const targets: { label: string; open: () => Promise<Store | undefined>; rounds: number }[] = [
  { label: 'no store', open: async () => undefined, rounds: 30 },
  { label: 'memory:', open: () => openStore('memory:'), rounds: 30 },
  { label: 'sqlite (synchronous=normal)', open: () => openStore(`sqlite:${join(folder, 'bench.db')}`), rounds: 10 },
  { label: 'bare sqlite journal (floor)', open: async () => bareSqliteJournal(join(folder, 'bare.db')), rounds: 10 },
  {
    label: 'postgres',
    open: () => openStore(postgresUrl, { schema, connectTimeoutMs: 3000 }),
    rounds: 3,
  },
];

try {
  // Warm-up: JIT the loop without and with a journal.
  await perStep(undefined, 5);
  const warm = await openStore('memory:');
  await perStep(warm, 5);
  await warm.close();
  const opened: { label: string; store: Store | undefined; rounds: number; wall: number[]; cpu: number[] }[] = [];
  for (const target of targets) {
    try {
      opened.push({ label: target.label, store: await target.open(), rounds: target.rounds, wall: [], cpu: [] });
    } catch (error) {
      console.log(`${target.label}: skipped (${(error as Error).message.split('\n')[0]})`);
    }
  }
  try {
    // One untimed run per store: its statements prepared, its pool's connection open, its path JIT-compiled
    // (without it Postgres' 3 rounds timed mostly a cold start).
    for (const target of opened) await oneRun(target.store);
    const rounds = Math.max(...opened.map((target) => target.rounds));
    for (let round = 0; round < rounds; round++) {
      for (const target of opened) {
        if (round >= target.rounds) continue;
        const run = await oneRun(target.store);
        target.wall.push(run.wall);
        target.cpu.push(run.cpu);
      }
    }
  } finally {
    for (const target of opened) await target.store?.close();
  }
  const figures = new Map(
    opened.map((target) => [
      target.label,
      { fastest: Math.min(...target.wall), median: median(target.wall), cpu: median(target.cpu) },
    ]),
  );
  const base = figures.get('no store') as PerStep;
  for (const target of opened) {
    const result = figures.get(target.label) as PerStep;
    const extra =
      target.store === undefined
        ? ''
        : `, +${(result.fastest - base.fastest).toFixed(1)} µs/step over no store (median +${(result.median - base.median).toFixed(1)}, CPU +${(result.cpu - base.cpu).toFixed(1)})`;
    console.log(
      `${target.label}: ${result.fastest.toFixed(1)} µs/step fastest, ${result.median.toFixed(1)} median, ` +
        `CPU ${result.cpu.toFixed(1)} median (${target.rounds} runs of ${STEPS} steps)${extra}`,
    );
  }
  const sqlite = figures.get('sqlite (synchronous=normal)');
  const bare = figures.get('bare sqlite journal (floor)');
  if (sqlite && bare) {
    const over = (figure: PerStep, key: keyof PerStep) => figure[key] - base[key];
    console.log(
      `ratio: SQLite's extra per step / the bare SQLite journal's: ${(over(sqlite, 'fastest') / over(bare, 'fastest')).toFixed(2)}x fastest, ` +
        `${(over(sqlite, 'median') / over(bare, 'median')).toFixed(2)}x median, ${(over(sqlite, 'cpu') / over(bare, 'cpu')).toFixed(2)}x CPU (target <= 1.8x)`,
    );
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: postgresUrl });
  await client
    .connect()
    .then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`))
    .catch(() => {})
    .finally(() => client.end());
}
