import type { HrTime } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { type OtelSinkOptions, otelSink } from '../src/otel-sink';

/** Numeric SpanKind / SpanStatusCode values, as the exporter reports them. */
export const INTERNAL = 0;
export const CLIENT = 2;
export const UNSET = 0;
export const ERROR = 2;

/** An otelSink writing to the real SDK's in-memory exporter. */
export function setupOtel(options: Omit<OtelSinkOptions, 'tracer'> = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sink = otelSink({ tracer: provider.getTracer('bridle-test'), ...options });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => spans().filter((span) => span.name === name);
  return { sink, spans, named };
}

/** An HrTime as epoch milliseconds. */
export function ms(time: HrTime | undefined): number {
  return time === undefined ? Number.NaN : time[0] * 1000 + time[1] / 1e6;
}

/** Epoch milliseconds of an ISO time, plus `plusMs`. */
export function at(iso: string, plusMs = 0): number {
  return Date.parse(iso) + plusMs;
}

/** The span id of a span's parent. */
export function parentOf(span: ReadableSpan | undefined): string | undefined {
  return span?.parentSpanContext?.spanId;
}
