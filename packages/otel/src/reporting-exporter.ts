import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

type ResultCallback = Parameters<SpanExporter['export']>[1];

// ExportResultCode.SUCCESS of @opentelemetry/core (a type-only import keeps that package a transitive one).
const SUCCESS = 0;

/**
 * Wraps `exporter` so that every failed export (collector unreachable, an HTTP error, a timeout) is passed
 * to `onFailure`; results still reach the SDK unchanged.
 */
export function reportingExporter(exporter: SpanExporter, onFailure: (error: Error) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], resultCallback: ResultCallback) {
      exporter.export(spans, (result) => {
        if (result.code !== SUCCESS) onFailure(result.error ?? new Error('the export failed'));
        resultCallback(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => (exporter.forceFlush as () => Promise<void>)() } : {}),
  };
}
