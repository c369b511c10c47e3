// Benchmark of the @bridle/core loop against a minimal hand-written loop (the floor).
// Run from the repo root on bundled sources (esbuild, no keepNames: like the published build):
//   npx esbuild bench/core/agent-loop.ts --bundle --platform=node --format=esm --conditions=@bridle/source \
//     --outfile=/tmp/bridle-core-bench.mjs && node --expose-gc /tmp/bridle-core-bench.mjs
// (or directly, slower because tsx wraps every function: node --expose-gc --conditions=@bridle/source --import tsx bench/core/agent-loop.ts)
// A) one run of 200 steps, each one validated call to `add`: µs per step (core vs floor)
// B) 50 runs of one step with 16 calls: µs per call (core vs floor)
// C) 500 steps with 2,000-character results: per-step time of the first 100 vs the last 100, and heap.
import { runAgent } from '@bridle/core';
import type { Message, Model, ModelRequest, ModelResponse, Tool, ToolCall } from '@bridle/protocol';

const addTool: Tool = {
  name: 'add',
  description: 'Add two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  execute: (args) => (args as { a: number; b: number }).a + (args as { a: number; b: number }).b,
};

function callsOf(step: number, count: number): ToolCall[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `c${step}_${index}`,
    name: 'add',
    arguments: { a: step, b: index },
  }));
}

/** A model that asks for `callsPerStep` add calls on each of `steps` steps, then answers. Precomputed: no cost. */
function benchModel(steps: number, callsPerStep: number, onCall?: (index: number) => void): Model {
  const responses: ModelResponse[] = Array.from({ length: steps }, (_, step) => ({
    content: '',
    toolCalls: callsOf(step, callsPerStep),
  }));
  let index = 0;
  return {
    id: 'bench',
    async generate(_request: ModelRequest) {
      onCall?.(index);
      return responses[index++] ?? { content: 'done' };
    },
  };
}

/** The floor: the least a loop can do (Map lookup, tiny validator, array push) with the same model. */
async function floorLoop(
  model: Model,
  maxSteps: number,
  tool: (args: { a: number; b: number }) => unknown,
): Promise<Message[]> {
  const tools = new Map([['add', tool]]);
  const messages: Message[] = [{ role: 'user', content: 'go' }];
  const signal = new AbortController().signal;
  for (let step = 0; step < maxSteps; step++) {
    const response = await model.generate({ messages, tools: [], signal });
    if (!response.toolCalls?.length) {
      messages.push({ role: 'assistant', content: response.content });
      break;
    }
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    for (const toolCall of response.toolCalls) {
      const execute = tools.get(toolCall.name);
      const args = toolCall.arguments as { a: unknown; b: unknown };
      const valid =
        typeof args === 'object' && args !== null && typeof args.a === 'number' && typeof args.b === 'number';
      const value = execute && valid ? await execute(args as { a: number; b: number }) : 'error';
      messages.push({
        role: 'tool',
        callId: toolCall.id,
        name: toolCall.name,
        content: typeof value === 'string' ? value : JSON.stringify(value),
        isError: !valid,
      });
    }
  }
  return messages;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
// On a shared, busy machine the fastest round is the best estimate of the cost itself (others only add noise).
const fastest = (values: number[]) => Math.min(...values);
const addExecute = (args: { a: number; b: number }) => args.a + args.b;

async function benchA(rounds: number, observed = false) {
  const onEvent = observed ? [(event: unknown) => void event] : [];
  const core: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    const result = await runAgent({
      model: benchModel(200, 1),
      tools: [addTool],
      prompt: 'go',
      maxSteps: 200,
      onEvent,
    });
    core.push(((performance.now() - start) * 1000) / 200);
    if (result.steps !== 200 || result.toolCalls !== 200) throw new Error(`A: unexpected ${result.status}`);
    start = performance.now();
    await floorLoop(benchModel(200, 1), 200, addExecute);
    floor.push(((performance.now() - start) * 1000) / 200);
  }
  return { core: fastest(core), floor: fastest(floor), coreMedian: median(core), floorMedian: median(floor) };
}

async function benchB(rounds: number) {
  const core: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    for (let run = 0; run < 50; run++) {
      const result = await runAgent({ model: benchModel(1, 16), tools: [addTool], prompt: 'go', maxSteps: 1 });
      if (result.toolCalls !== 16) throw new Error('B: unexpected');
    }
    core.push(((performance.now() - start) * 1000) / 800);
    start = performance.now();
    for (let run = 0; run < 50; run++) await floorLoop(benchModel(1, 16), 1, addExecute);
    floor.push(((performance.now() - start) * 1000) / 800);
  }
  return { core: fastest(core), floor: fastest(floor), coreMedian: median(core), floorMedian: median(floor) };
}

// A fresh, flat 2,000-character string per call (no shared cons-string parts), so the heap shows the history.
const bigResult: Tool = {
  ...addTool,
  name: 'add',
  execute: (args) => Buffer.alloc(2_000, `${JSON.stringify(args)}r`).toString('latin1'),
};

async function benchC(withHeap: boolean, maxContextChars?: number) {
  const stamps: number[] = [];
  const heap: { step: number; mb: number }[] = [];
  const model = benchModel(500, 1, (index) => {
    if (withHeap && index % 100 === 0) {
      globalThis.gc?.();
      heap.push({ step: index, mb: process.memoryUsage().heapUsed / 1e6 });
    }
    stamps.push(performance.now());
  });
  const context = maxContextChars === undefined ? {} : { context: { maxContextChars } };
  const result = await runAgent({ model, tools: [bigResult], prompt: 'go', maxSteps: 500, ...context });
  stamps.push(performance.now());
  if (result.steps !== 500) throw new Error('C: unexpected');
  const perStep = stamps.slice(1).map((stamp, index) => (stamp - (stamps[index] as number)) * 1000);
  // The median step of each window: a preempted step on a busy machine should not decide the comparison.
  return {
    first: median(perStep.slice(0, 100)),
    last: median(perStep.slice(400, 500)),
    heap,
    messages: result.messages.length,
  };
}

// Warm-up: JIT both loops.
await benchA(5);
await benchB(3);
await benchC(false);

const line = (label: string, unit: string, r: Awaited<ReturnType<typeof benchA>>) =>
  console.log(
    `${label}: core ${r.core.toFixed(2)} ${unit}, floor ${r.floor.toFixed(2)} ${unit}, ratio ${(r.core / r.floor).toFixed(2)}x` +
      ` (medians: core ${r.coreMedian.toFixed(2)}, floor ${r.floorMedian.toFixed(2)})`,
  );
line('A) 200 steps x 1 call', 'µs/step', await benchA(30));
line('A) same, with one onEvent observer (events stamped)', 'µs/step', await benchA(30, true));
line('B) 50 runs x 16 calls', 'µs/call', await benchB(20));
const cRuns: Awaited<ReturnType<typeof benchC>>[] = [];
for (let round = 0; round < 9; round++) cRuns.push(await benchC(false));
const firsts = median(cRuns.map((run) => run.first));
const lasts = median(cRuns.map((run) => run.last));
console.log(
  `C) 500 steps, 2,000-char results: first 100 ${firsts.toFixed(2)} µs/step, last 100 ${lasts.toFixed(2)} µs/step, last/first ${(lasts / firsts).toFixed(2)}`,
);
const windowed: Awaited<ReturnType<typeof benchC>>[] = [];
for (let round = 0; round < 9; round++) windowed.push(await benchC(false, 100_000));
const windowedFirst = median(windowed.map((run) => run.first));
const windowedLast = median(windowed.map((run) => run.last));
console.log(
  `C) same with context.maxContextChars 100,000 (selection before every call): first 100 ${windowedFirst.toFixed(2)} µs/step, last 100 ${windowedLast.toFixed(2)} µs/step, last/first ${(windowedLast / windowedFirst).toFixed(2)}`,
);
const withHeap = await benchC(true);
if (globalThis.gc) {
  const base = withHeap.heap[0]?.mb ?? 0;
  console.log(
    `C) heap used after gc, by step: ${withHeap.heap.map((sample) => `${sample.step}: +${(sample.mb - base).toFixed(2)} MB`).join(', ')}`,
  );
} else console.log('C) heap: run with --expose-gc for heap samples');
