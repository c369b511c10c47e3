// Benchmark of the harness overhead of an eval case (model time excluded: the model answers at once), for 1,000 cases.
// Run: pnpm bench evals   (bundled from sources by bench/run.mjs, run with node --expose-gc)
// A) runBatch of 1,000 plain runAgent runs (one tool call, then an answer): the floor an eval stands on.
// B) runEval of the same 1,000 cases with every built-in scorer (no store): B - A is what the eval adds per case.
// C) B journaled to a memory: store, and to a SQLite file (each case a tagged, resumable run), against A with
//    the same store.
// D) the resume of C (SQLite): every case found ended in the journal and scored from it, no run at all.
// E) scoring alone: the six built-in scorers on one finished run's events, per case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBatch } from '../../packages/batch/src/index';
import { runAgent } from '../../packages/core/src/index';
import {
  BUILT_IN_SCORERS,
  checkDataset,
  type EvalCaseInput,
  type EvalVariant,
  evalRunFromEvents,
  runEval,
  type Scorer,
  scoreRun,
} from '../../packages/evals/src/index';
import type { Model, ModelRequest, ModelResponse, RunEvent, Store, Tool } from '../../packages/protocol/src/index';
import { openStore } from '../../packages/store/src/index';

const CASES = 1000;
const CONCURRENCY = 8;

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  readOnly: true,
  execute: (args) => `value of ${(args as { key: string }).key}`,
};

/** Asks for one lookup, then answers `4`: precomputed responses, no model time. */
const model: Model = {
  id: 'bench',
  async generate(request: ModelRequest): Promise<ModelResponse> {
    return request.messages.at(-1)?.role === 'tool'
      ? { content: '{"total": 4}', usage: { inputTokens: 20, outputTokens: 4 } }
      : {
          content: '',
          toolCalls: [{ id: 'c1', name: 'lookup', arguments: { key: 'a' } }],
          usage: { inputTokens: 10, outputTokens: 5 },
        };
  },
};

const dataset: EvalCaseInput[] = Array.from({ length: CASES }, (_, index) => ({
  id: `case-${index}`,
  input: `What is 2 + 2? (${index})`,
  expected: {
    answer: '{"total": 4}',
    contains: 'total',
    regex: '/"total":\\s*4/',
    tools: [{ name: 'lookup', arguments: { key: 'a' } }],
    json: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
  },
}));
const scorers: Scorer[] = Object.values(BUILT_IN_SCORERS).map((make) => make());
const variant: EvalVariant = { name: 'bench', agent: { model, tools: [lookup] } };

async function time(run: () => Promise<unknown>): Promise<number> {
  globalThis.gc?.();
  const started = performance.now();
  await run();
  return performance.now() - started;
}

async function plain(store?: Store): Promise<number> {
  const items = dataset.map((entry, index) => ({
    id: `plain-${index}-${Math.random()}`,
    prompt: entry.input as string,
  }));
  return time(() =>
    runBatch(items, {
      agent: { model, tools: [lookup], ...(store ? { store } : {}) },
      concurrency: CONCURRENCY,
      retry: { maxRetries: 0 },
    }),
  );
}

let evals = 0;
async function evaluated(store?: Store, evalId = `bench-${evals++}`): Promise<number> {
  return time(async () => {
    const result = await runEval({
      dataset,
      variants: [variant],
      scorers,
      concurrency: CONCURRENCY,
      evalId,
      ...(store ? { store } : {}),
    });
    if (!result.complete || result.summary[0]?.passed !== CASES) throw new Error('bench eval did not pass every case');
  });
}

const perCase = (ms: number) => `${((ms * 1000) / CASES).toFixed(0)} µs`;
const row = (name: string, floor: number, eval_: number) =>
  console.log(
    `${name.padEnd(26)} runBatch ${perCase(floor).padStart(8)}  runEval ${perCase(eval_).padStart(8)}  eval adds ${perCase(eval_ - floor).padStart(8)} per case`,
  );

// Warm up (JIT, Ajv compiles the schema once).
await plain();
await evaluated();

console.log(
  `${CASES} cases, concurrency ${CONCURRENCY}, ${scorers.length} scorers (${scorers.map((scorer) => scorer.name).join(', ')}); median of 3`,
);
const median = async (run: () => Promise<number>) => {
  const times = [await run(), await run(), await run()].sort((a, b) => a - b);
  return times[1] as number;
};
row('no store', await median(() => plain()), await median(() => evaluated()));
const memory = await openStore('memory:', { maxRuns: 100_000 });
row('memory: store', await median(() => plain(memory)), await median(() => evaluated(memory)));
await memory.close();
const folder = mkdtempSync(join(tmpdir(), 'bridle-eval-bench-'));
const sqlite = await openStore(`sqlite:${join(folder, 'bench.db')}`);
const sqliteFloor = await plain(sqlite);
const sqliteEval = await evaluated(sqlite, 'resume');
row('sqlite store (1 run)', sqliteFloor, sqliteEval);
const resumed = await evaluated(sqlite, 'resume');
console.log(`resume from the sqlite journal: ${perCase(resumed)} per case (every case read and scored, none run)`);
await sqlite.close();
rmSync(folder, { recursive: true, force: true });

const events: RunEvent[] = [];
const one = await runAgent({
  model,
  tools: [lookup],
  prompt: 'What is 2 + 2?',
  onEvent: (event) => events.push(event),
});
const cases = checkDataset(dataset);
const scoring = await median(async () =>
  time(async () => {
    for (const testCase of cases) await scoreRun(evalRunFromEvents(one.runId, 'bench', events), testCase, scorers);
  }),
);
console.log(`scoring alone (6 scorers, from the events): ${perCase(scoring)} per case`);
