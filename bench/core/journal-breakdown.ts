/**
 * Where workload S's journal cost goes (issue "Speed to the floor", 4): CPU µs per one-step run (an instant
 * model, no tools) of `runAgent` with no store, with a store whose appends do nothing (core's own
 * journaling: stamps, the segment, the manifest, three awaited flushes), with `memory:` reduced to its
 * appends, with its leases added, with its signal channel added, and with all of it (what `openStore` gives).
 * Each variant is the same `memory:` store with some of its optional methods hidden; rounds are interleaved.
 * Run: pnpm bench journal-breakdown [rounds]
 */
import { runAgent } from '../../packages/core/src/index';
import type { Model, ModelResponse, Store } from '../../packages/protocol/src/index';
import { openStore } from '../../packages/store/src/index';

const RUNS = 200;
const ROUNDS = Number(process.argv[2] ?? 30);
const WARM = 10;

const answer: ModelResponse = { content: 'done', usage: { inputTokens: 10, outputTokens: 1 } };
const model: Model = {
  id: 'bench',
  async generate() {
    return answer;
  },
};

const REQUIRED = [
  'appendEvents',
  'readRun',
  'listRuns',
  'getSession',
  'saveSession',
  'deleteSession',
  'listSessions',
  'close',
];

/** `store` with only the required methods and `extra` (bound to it). */
function only(store: Store, extra: string[]): Store {
  const methods = store as unknown as Record<string, (...args: unknown[]) => unknown>;
  const kept: Record<string, unknown> = {};
  for (const name of [...REQUIRED, ...extra])
    kept[name] = (methods[name] as (...args: unknown[]) => unknown).bind(store);
  return kept as unknown as Store;
}

const noOp = {
  appendEvents: async () => {},
  readRun: async () => undefined,
  listRuns: async () => [],
  getSession: async () => undefined,
  saveSession: async () => {},
  deleteSession: async () => false,
  listSessions: async () => [],
  close: async () => {},
} as unknown as Store;

const labels = [
  'no store',
  'a store whose appends do nothing',
  'memory: appends only',
  'memory: appends + leases',
  'memory: appends + signals',
  'memory: (all)',
] as const;
const cpu = new Map<string, number[]>(labels.map((label) => [label, []]));

for (let round = 0; round < WARM + ROUNDS; round++) {
  const memory = await openStore('memory:');
  const stores: Record<(typeof labels)[number], Store | undefined> = {
    'no store': undefined,
    'a store whose appends do nothing': noOp,
    'memory: appends only': only(memory, []),
    'memory: appends + leases': only(memory, ['acquireLease', 'renewLease', 'releaseLease']),
    'memory: appends + signals': only(memory, ['listenRunSignals', 'sendRunSignal']),
    'memory: (all)': memory,
  };
  for (const label of labels) {
    const store = stores[label];
    const start = process.cpuUsage();
    for (let run = 0; run < RUNS; run++) await runAgent({ model, prompt: 'go', ...(store ? { store } : {}) });
    const used = process.cpuUsage(start);
    if (round >= WARM) cpu.get(label)?.push((used.user + used.system) / RUNS);
  }
  await memory.close();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
for (const label of labels) {
  const values = cpu.get(label) as number[];
  console.log(
    `${label.padEnd(34)} CPU ${median(values).toFixed(2).padStart(6)} µs/run median, ${Math.min(...values)
      .toFixed(2)
      .padStart(6)} min (${ROUNDS} rounds of ${RUNS} runs)`,
  );
}
