/**
 * otelSink cost per event, with the real OpenTelemetry SDK (BasicTracerProvider, spans discarded by a
 * no-op exporter behind a SimpleSpanProcessor) so the number includes span creation in the SDK.
 * Run: npx tsx bench/events/otel-sink.ts   (from /work/main)
 *
 * Each run: run_start, 10 steps of (model_start, model_end, tool_start, tool_end), run_end = 42 events,
 * 21 spans. Reports ns per event for: no observer, otelSink over a no-op tracer (the sink's own cost),
 * otelSink without content, otelSink with content.
 */
import { createRequire } from 'node:module';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import { otelSink, RunEmitter, type RunEventInput } from '../../packages/events/src/index';

// The SDK is a devDependency of @bridle/events, so resolve it from there.
const require = createRequire(new URL('../../packages/events/package.json', import.meta.url));
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;

const RUNS = 10_000;
const usage = { inputTokens: 100, outputTokens: 20 };
const exporter = {
  export: (_spans: unknown, done: (result: { code: 0 }) => void) => done({ code: 0 }),
  shutdown: async () => {},
};
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');

function run(): RunEventInput[] {
  const events: RunEventInput[] = [{ type: 'run_start', model: 'openai:gpt-4o-mini', prompt: 'What is 1 + 2?' }];
  for (let step = 1; step <= 10; step++) {
    events.push(
      { type: 'model_start', step, attempt: 1 },
      { type: 'model_end', step, usage, toolCalls: 1, content: 'Let me add.' },
      { type: 'tool_start', step, callId: `c${step}`, name: 'add', arguments: { a: 1, b: 2 } },
      { type: 'tool_end', step, callId: `c${step}`, name: 'add', isError: false, result: '3' },
    );
  }
  events.push({ type: 'run_end', status: 'completed', steps: 10, toolCalls: 10, usage, answer: '3' });
  return events;
}

function measure(label: string, onEvent: ((event: never) => void) | undefined): void {
  const inputs = run();
  for (let round = 0; round < 2; round++) {
    const start = performance.now();
    for (let index = 0; index < RUNS; index++) {
      const emitter = new RunEmitter({ runId: `r${index}`, onEvent });
      for (const input of inputs) emitter.emit(input);
    }
    const ns = ((performance.now() - start) * 1e6) / (RUNS * inputs.length);
    if (round === 1) console.log(`${label.padEnd(28)} ${ns.toFixed(0).padStart(5)} ns/event`);
  }
}

measure('no observer', undefined);
// A tracer whose spans do nothing: what the sink itself costs, without the SDK.
const noopSpan = {
  setAttribute: () => noopSpan,
  setAttributes: () => noopSpan,
  setStatus: () => noopSpan,
  end: () => {},
};
const noopTracer = { startSpan: () => noopSpan } as unknown as Parameters<typeof otelSink>[0]['tracer'];
measure('otelSink, no-op tracer', otelSink({ tracer: noopTracer }).onEvent);
measure('otelSink', otelSink({ tracer }).onEvent);
measure('otelSink captureContent', otelSink({ tracer, captureContent: true }).onEvent);
