/**
 * Workload S: what the loop costs with a journal's hooks, against the floor, in interleaved rounds.
 * 200 steps, no tools: 200 one-step runs whose instant model answers at once (the work `/api/chat` asks of
 * the loop). Each round times, one after the other:
 *   - floor: a bare hand-written loop (one model call, the answer pushed to the transcript);
 *   - floor + bare journal: the same, appending `run_start`, the model's answer and `run_end` as JSON lines to
 *     an array before each is acted on (awaited, as a store append is);
 *   - core: `runAgent` without a store or observer (target: nothing measurable over the floor);
 *   - core + journal: `runAgent` with a `memory:` store (every event stamped, encoded, checked and kept).
 * Target (issue "Speed to the floor", 4): core + journal at most 1.5x floor + bare journal.
 * Prints the fastest and the median round in µs per step (wall time; on a shared machine the fastest is the
 * best estimate of the cost itself) and the median CPU time of this process per step.
 * Run: pnpm bench core   (or with --cpu-prof: node --cpu-prof <the bundle> to see where the time goes)
 */
import { randomUUID } from 'node:crypto';
import { runAgent } from '@bridle/core';
import type { Message, Model, ModelResponse, Store } from '@bridle/protocol';
import { openStore } from '@bridle/store';

const STEPS = 200;
const ROUNDS = 30;

function instantModel(): Model {
  const answer: ModelResponse = { content: 'done', usage: { inputTokens: 10, outputTokens: 1 } };
  return {
    id: 'bench',
    async generate() {
      return answer;
    },
  };
}

/** The bare journal: each run's events as JSON lines in an array, appended through a promise like a store's. */
class BareJournal {
  readonly runs = new Map<string, string[]>();

  async append(runId: string, events: readonly object[]): Promise<void> {
    let rows = this.runs.get(runId);
    if (rows === undefined) {
      rows = [];
      this.runs.set(runId, rows);
    }
    for (const event of events) rows.push(JSON.stringify(event));
  }
}

const SIGNAL = new AbortController().signal;

/** One bare run: one model call, its answer journaled (when a journal is given) before it is used. */
async function bareRun(model: Model, journal: BareJournal | undefined): Promise<Message[]> {
  const runId = randomUUID();
  const at = () => new Date().toISOString();
  if (journal) {
    await journal.append(runId, [
      { type: 'run_start', runId, sequence: 0, timestamp: at(), model: model.id, prompt: 'go' },
    ]);
  }
  const messages: Message[] = [{ role: 'user', content: 'go' }];
  const response = await model.generate({ messages, tools: [], signal: SIGNAL });
  if (journal) {
    await journal.append(runId, [
      { type: 'model_end', runId, sequence: 1, timestamp: at(), step: 1, content: response.content },
    ]);
  }
  messages.push({ role: 'assistant', content: response.content });
  if (journal) {
    await journal.append(runId, [
      { type: 'run_end', runId, sequence: 2, timestamp: at(), status: 'completed', answer: response.content },
    ]);
  }
  return messages;
}

async function coreRun(model: Model, store: Store | undefined): Promise<void> {
  const result = await runAgent({ model, prompt: 'go', ...(store === undefined ? {} : { store }) });
  if (result.status !== 'completed') throw new Error(`S: unexpected ${result.status}`);
}

interface Measured {
  wall: number[];
  cpu: number[];
}

async function timed(into: Measured, work: () => Promise<void>): Promise<void> {
  const startCpu = process.cpuUsage();
  const start = performance.now();
  for (let step = 0; step < STEPS; step++) await work();
  into.wall.push(((performance.now() - start) * 1000) / STEPS);
  const used = process.cpuUsage(startCpu);
  into.cpu.push((used.user + used.system) / STEPS);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const model = instantModel();
const labels = ['floor', 'floor + bare journal', 'core (no store)', 'core + journal (memory:)'] as const;
const results = new Map<string, Measured>(labels.map((label) => [label, { wall: [], cpu: [] }]));

async function round(record: boolean): Promise<void> {
  const bare = new BareJournal();
  const store = await openStore('memory:');
  const into = (label: (typeof labels)[number]) => (record ? (results.get(label) as Measured) : { wall: [], cpu: [] });
  await timed(into('floor'), async () => void (await bareRun(model, undefined)));
  await timed(into('floor + bare journal'), async () => void (await bareRun(model, bare)));
  await timed(into('core (no store)'), () => coreRun(model, undefined));
  await timed(into('core + journal (memory:)'), () => coreRun(model, store));
  await store.close();
}

for (let warm = 0; warm < 10; warm++) await round(false);
for (let index = 0; index < ROUNDS; index++) await round(true);

const line = (label: string) => {
  const { wall, cpu } = results.get(label) as Measured;
  return { fastest: Math.min(...wall), median: median(wall), cpu: median(cpu) };
};
for (const label of labels) {
  const { fastest, median: middle, cpu } = line(label);
  console.log(
    `S) ${label.padEnd(25)} ${fastest.toFixed(2).padStart(7)} µs/step fastest, ${middle.toFixed(2).padStart(7)} median, CPU ${cpu.toFixed(2)} median`,
  );
}
const ratio = (a: string, b: string) => {
  const [x, y] = [line(a), line(b)];
  return `${(x.fastest / y.fastest).toFixed(2)}x fastest, ${(x.median / y.median).toFixed(2)}x median, ${(x.cpu / y.cpu).toFixed(2)}x CPU`;
};
console.log(
  `S) core + journal / floor + bare journal: ${ratio('core + journal (memory:)', 'floor + bare journal')} (target: at most 1.5x)`,
);
console.log(`S) core (no store) / floor: ${ratio('core (no store)', 'floor')}`);
