/**
 * RunEmitter.emit cost on the hot path.
 * Run: npx tsx bench/events/emit.ts   (from /work/main)
 *
 * Emits a realistic cycle (model_start, model_end, tool_start, tool_end) many times and reports ns per emit
 * with no observer, with an array-collecting observer, and with the JSONL sink (serialization happens in the
 * sink, not in emit).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventRecorder, jsonlSink, RunEmitter, type RunEventInput } from '../../packages/events/src/index';

const CYCLES = 100_000;
const usage = { inputTokens: 100, outputTokens: 20 };

function cycle(step: number): RunEventInput[] {
  return [
    { type: 'model_start', step, attempt: 1 },
    { type: 'model_end', step, usage, toolCalls: 1, content: '' },
    { type: 'tool_start', step, callId: `c${step}`, name: 'add', arguments: { a: 1, b: 2 } },
    { type: 'tool_end', step, callId: `c${step}`, name: 'add', isError: false, result: '3' },
  ];
}

function measure(label: string, emitter: () => RunEmitter): void {
  const inputs = Array.from({ length: 1000 }, (_, index) => cycle(index + 1)).flat();
  for (let round = 0; round < 2; round++) {
    const target = emitter();
    const start = performance.now();
    for (let index = 0; index < CYCLES * 4; index++) target.emit(inputs[index % inputs.length] as RunEventInput);
    const ns = ((performance.now() - start) * 1e6) / (CYCLES * 4);
    if (round === 1) console.log(`${label.padEnd(28)} ${ns.toFixed(0).padStart(5)} ns/emit`);
  }
}

measure('no observer', () => new RunEmitter({ runId: 'r' }));
measure('eventRecorder', () => new RunEmitter({ runId: 'r', onEvent: eventRecorder().onEvent }));
const path = join(tmpdir(), `bridle-bench-${process.pid}.jsonl`);
const sinks: { close(): Promise<void> }[] = [];
measure('jsonlSink (incl. stringify)', () => {
  const sink = jsonlSink(path);
  sinks.push(sink);
  return new RunEmitter({ runId: 'r', onEvent: sink.onEvent });
});
await Promise.all(sinks.map((sink) => sink.close()));
rmSync(path, { force: true });
