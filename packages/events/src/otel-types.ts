// The part of the OpenTelemetry API (1.x) the OTel sink uses, declared here so that this package's types do not
// need `@opentelemetry/api` installed: it is an optional peer dependency, and a consumer with strict TypeScript
// and no `skipLibCheck` would fail on a type import of a package it does not have. A `Tracer` of the real API
// (`trace.getTracer('my-app')`) fits {@link OtelTracer}; the sink's tests pass real ones.

/** An attribute value, as the API's `AttributeValue`. */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

/** Span attributes, as the API's `Attributes`. */
export interface OtelAttributes {
  [key: string]: OtelAttributeValue | undefined;
}

/** A time as `[seconds, nanoseconds]` since the epoch, as the API's `HrTime`. */
export type OtelHrTime = [number, number];

/** A span context carrier, as the API's `Context`. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** What the sink calls on a span, as on the API's `Span`. */
export interface OtelSpan {
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  setAttributes(attributes: OtelAttributes): unknown;
  /** `code`: the API's `SpanStatusCode` (0 unset, 1 ok, 2 error). */
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: OtelHrTime): void;
}

/** What the sink calls on a tracer, as on the API's `Tracer` (which fits it). */
export interface OtelTracer {
  /** `options.kind`: the API's `SpanKind` (0 internal, 2 client). */
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: OtelHrTime; attributes?: OtelAttributes },
    context?: OtelContext,
  ): OtelSpan;
}
