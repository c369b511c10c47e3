import type { OtelContext, OtelHrTime, OtelSpan } from './otel-types';

// The key under which @opentelemetry/api keeps the current span in a Context. The API builds it with
// `Symbol.for('OpenTelemetry Context Key SPAN')` precisely so that every copy and version of the API
// (1.x) agrees on it; using the same symbol here lets this package parent spans without importing the
// API at run time (it is an optional peer dependency).
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A Context holding only `span` as the current span: what `trace.setSpan(ROOT_CONTEXT, span)` returns,
 * built without the API. Pass it to `tracer.startSpan` to make the new span a child of `span`.
 */
export function spanContext(span: OtelSpan): OtelContext {
  return contextOf(new Map<symbol, unknown>([[SPAN_KEY, span]]));
}

function contextOf(values: ReadonlyMap<symbol, unknown>): OtelContext {
  return {
    getValue: (key) => values.get(key),
    setValue: (key, value) => contextOf(new Map(values).set(key, value)),
    deleteValue: (key) => {
      const rest = new Map(values);
      rest.delete(key);
      return contextOf(rest);
    },
  };
}

/**
 * Epoch milliseconds (may be fractional) as an OpenTelemetry `HrTime` `[seconds, nanoseconds]`. A plain
 * number would be ambiguous to the SDK: one smaller than the process's time origin is read as
 * `performance.now()`, which would misplace replayed events from earlier runs.
 */
export function toHrTime(epochMs: number): OtelHrTime {
  let seconds = Math.floor(epochMs / 1000);
  let nanoseconds = Math.round((epochMs - seconds * 1000) * 1e6);
  if (nanoseconds >= 1e9) {
    seconds += 1;
    nanoseconds -= 1e9;
  }
  return [seconds, nanoseconds];
}

/** Epoch milliseconds of an ISO event timestamp; `Date.now()` when it cannot be parsed. */
export function epochMsOf(timestamp: string): number {
  const ms = Date.parse(timestamp);
  return Number.isFinite(ms) ? ms : Date.now();
}
