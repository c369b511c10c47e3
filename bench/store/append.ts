/**
 * appendEvents cost per agent step: 200 steps of 5 events each (model_start, model_end, tool_start, text_delta,
 * tool_end), one append per step as the loop journals them, on memory:, SQLite (synchronous normal, the default,
 * and full) and Postgres (BRIDLE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test; skipped when
 * unreachable). Reports µs per append (mean, median, p95) and the mean of the first and last 20 steps, which
 * stay equal when an append's cost does not grow with the run's history.
 * Run: pnpm bench store
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, Store } from '../../packages/protocol/src/index';
import { openStore } from '../../packages/store/src/index';

const STEPS = 200;
const RUNS = 3;
const usage = { inputTokens: 1200, outputTokens: 80 };

function step(runId: string, index: number): RunEvent[] {
  const first = index * 5 + 1;
  const at = (offset: number) => ({ runId, sequence: first + offset, timestamp: new Date().toISOString() });
  const callId = `call_${index}`;
  return [
    { ...at(0), type: 'model_start', step: index + 1, attempt: 1 },
    {
      ...at(1),
      type: 'model_end',
      step: index + 1,
      durationMs: 812.4,
      usage,
      toolCalls: 1,
      content: 'Let me look at that file.',
      finishReason: 'tool_calls',
      response: { toolCalls: [{ id: callId, name: 'read_file', arguments: { path: `src/file-${index}.ts` } }] },
    },
    {
      ...at(2),
      type: 'tool_start',
      step: index + 1,
      callId,
      name: 'read_file',
      arguments: { path: `src/file-${index}.ts` },
    },
    { ...at(3), type: 'text_delta', step: index + 1, text: 'Let me look at that file.' },
    {
      ...at(4),
      type: 'tool_end',
      step: index + 1,
      callId,
      name: 'read_file',
      durationMs: 0.4,
      isError: false,
      result: 'export const value = 42;\n'.repeat(40),
    },
  ];
}

async function measure(store: Store, runId: string): Promise<number[]> {
  await store.appendEvents(runId, [
    { runId, sequence: 0, timestamp: new Date().toISOString(), type: 'run_start', model: 'bench:model', prompt: 'go' },
  ]);
  const batches = Array.from({ length: STEPS }, (_, index) => step(runId, index));
  const times: number[] = [];
  for (const batch of batches) {
    const start = performance.now();
    await store.appendEvents(runId, batch);
    times.push((performance.now() - start) * 1000);
  }
  return times;
}

function report(label: string, times: number[]): void {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number;
  const first = mean(times.slice(0, 20));
  const last = mean(times.slice(-20));
  console.log(
    `${label.padEnd(26)} ${mean(times).toFixed(0).padStart(7)} µs/append  median ${at(0.5).toFixed(0).padStart(6)}  ` +
      `p95 ${at(0.95).toFixed(0).padStart(6)}  first 20 ${first.toFixed(0).padStart(6)}  last 20 ${last.toFixed(0).padStart(6)}`,
  );
}

async function bench(label: string, open: () => Promise<Store>): Promise<void> {
  const store = await open();
  try {
    await measure(store, 'warmup');
    const all: number[][] = [];
    for (let run = 0; run < RUNS; run++) all.push(await measure(store, `run-${run}`));
    // Median run by mean, so one noisy run on a shared machine does not decide the figure.
    const byMean = all.map((times) => ({ times, mean: times.reduce((sum, value) => sum + value, 0) }));
    byMean.sort((a, b) => a.mean - b.mean);
    report(label, (byMean[Math.floor(byMean.length / 2)] as { times: number[] }).times);
  } finally {
    await store.close();
  }
}

console.log(`appendEvents: ${STEPS} steps x 5 events, one append per step; median of ${RUNS} runs`);
const dir = mkdtempSync(join(tmpdir(), 'bridle-bench-store-'));
try {
  await bench('memory:', () => openStore('memory:'));
  await bench('sqlite (normal, default)', () => openStore(`sqlite:${join(dir, 'normal.db')}`));
  await bench('sqlite (full)', () => openStore(`sqlite:${join(dir, 'full.db')}`, { synchronous: 'full' }));
  const url = process.env.BRIDLE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bridle_bench_${process.pid}`;
  let postgres: Store | undefined;
  try {
    postgres = await openStore(url, { schema, connectTimeoutMs: 3000 });
  } catch (error) {
    console.log(`postgres                   skipped: ${(error as Error).message}`);
  }
  if (postgres !== undefined) {
    await postgres.close();
    try {
      await bench('postgres', () => openStore(url, { schema }));
    } finally {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
