/**
 * What a durable run costs: µs per step of a 200-step run (one validated `add` call per step, an instant
 * model) with no store, with `memory:`, with SQLite (the apps' default, synchronous=normal) and with Postgres
 * (BRIDLE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when unreachable).
 * With a store every event is journaled and a model response or tool result is durable before the loop goes
 * on. Reports the fastest and the median round, and each store's extra cost per step over no store.
 * CPU time (user + system of this process) is printed beside wall time: on a loaded machine wall time is
 * mostly waiting for a core. Run it as `nice -n -19 pnpm bench durable` (as root) to take the quiet-machine figure.
 * Targets (issue "Durable runs"): SQLite adds at most 250 µs per step; no store adds nothing measurable
 * (compare "no store" with `pnpm bench core`, A).
 * Run: pnpm bench durable
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../packages/core/src/index';
import type { Model, ModelResponse, Store, Tool } from '../../packages/protocol/src/index';
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

interface PerStep {
  fastest: number;
  median: number;
  /** Median CPU time of this process (user + system) per step: less swayed by other load than wall time. */
  cpu: number;
}

async function perStep(store: Store | undefined, rounds: number): Promise<PerStep> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    const result = await runAgent({
      model: instantModel(),
      tools: [addTool],
      prompt: 'go',
      maxSteps: STEPS,
      ...(store === undefined ? {} : { store, runId: randomUUID() }),
    });
    times.push(((performance.now() - start) * 1000) / STEPS);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / STEPS);
    if (result.steps !== STEPS) throw new Error(`unexpected: ${result.status} after ${result.steps} steps`);
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
  let base = 0;
  let baseCpu = 0;
  for (const target of targets) {
    let store: Store | undefined;
    try {
      store = await target.open();
    } catch (error) {
      console.log(`${target.label}: skipped (${(error as Error).message.split('\n')[0]})`);
      continue;
    }
    try {
      const result = await perStep(store, target.rounds);
      if (store === undefined) [base, baseCpu] = [result.fastest, result.cpu];
      const extra =
        store === undefined
          ? ''
          : `, +${(result.fastest - base).toFixed(1)} µs/step over no store (CPU +${(result.cpu - baseCpu).toFixed(1)})`;
      console.log(
        `${target.label}: ${result.fastest.toFixed(1)} µs/step fastest, ${result.median.toFixed(1)} median, ` +
          `CPU ${result.cpu.toFixed(1)} median (${target.rounds} runs of ${STEPS} steps)${extra}`,
      );
    } finally {
      await store?.close();
    }
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
