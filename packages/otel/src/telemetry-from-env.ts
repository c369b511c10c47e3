import { type EventObserver, type OtelSink, otelSink } from '@bridle/events';
import { displayURL } from '@bridle/protocol/internal';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import packageJson from '../package.json' with { type: 'json' };
import { type OtelEnv, readOtelEnv } from './otel-env';
import { reportingExporter } from './reporting-exporter';

/** Options of {@link telemetryFromEnv}. */
export interface TelemetryOptions {
  /** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one. Default `bridle`. */
  serviceName?: string;
  /**
   * The export timeout when `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` / `OTEL_EXPORTER_OTLP_TIMEOUT` are unset.
   * Default 10000 ms (the OTLP default); a short-lived CLI may want less.
   */
  exportTimeoutMs?: number;
  /**
   * Hears the first failure only (an export the collector did not take, or an error of the tracer), so
   * an app can print one warning line. Failures never reach the runs.
   */
  onError?: (error: Error) => void;
}

/** Tracing of runs to an OTLP/HTTP collector, as set up by {@link telemetryFromEnv}. */
export interface Telemetry {
  /** The observer to pass to runs (`onEvent`): the sink's. */
  readonly onEvent: EventObserver;
  /** The `@bridle/events` OpenTelemetry sink behind `onEvent`. */
  readonly sink: OtelSink;
  /** The tracer provider (a batch span processor and the OTLP/HTTP exporter). */
  readonly tracerProvider: BasicTracerProvider;
  /** Where spans go, without credentials (user info and query string removed). */
  readonly endpoint: string;
  /** The resource's `service.name`. */
  readonly serviceName: string;
  /** Whether prompts, answers, tool arguments and results go into spans. */
  readonly captureContent: boolean;
  /** The export timeout in milliseconds. */
  readonly exportTimeoutMs: number;
  /** Sends the spans ended so far; resolves (never rejects) within about the export timeout. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the exporter; idempotent; resolves (never rejects) within about the export timeout. */
  shutdown(): Promise<void>;
}

const DEFAULT_EXPORT_TIMEOUT_MS = 10_000;

/** `work`, settled (never rejecting) and given up on after `ms` (the timer does not keep the process alive). */
async function bounded(work: Promise<unknown>, ms: number, onError: (error: Error) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([work.then(() => undefined), timeout]);
  } catch (error) {
    onError(error instanceof Error ? error : new Error(String(error)));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Sets up tracing of runs from the standard OpenTelemetry variables of `env`, or returns undefined when
 * they do not ask for it (no `OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER` without `otlp`). Spans follow the GenAI semantic
 * conventions (`invoke_agent`, `chat <model>`, `execute_tool <name>`; see `otelSink` of `@bridle/events`)
 * and are sent in batches as OTLP/HTTP JSON. Prompts, answers, tool arguments and results are recorded
 * only with `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`. The resource carries
 * `service.name` (`OTEL_SERVICE_NAME`, else `OTEL_RESOURCE_ATTRIBUTES`, else `options.serviceName`), the
 * other `OTEL_RESOURCE_ATTRIBUTES` and the SDK's own attributes, nothing about the process (its
 * arguments may hold a prompt). Nothing is registered globally. Call `shutdown()` before exiting.
 *
 * @throws ConfigError for an endpoint that is not an http(s) URL, `grpc` as the protocol, or a bad timeout.
 */
export function telemetryFromEnv(env: OtelEnv, options: TelemetryOptions = {}): Telemetry | undefined {
  const settings = readOtelEnv(env);
  if (settings === undefined) return undefined;
  let reported = false;
  const report = (error: unknown) => {
    if (reported) return;
    reported = true;
    try {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A throwing hook must not reach the runs.
    }
  };
  const exportTimeoutMs = settings.timeoutMs ?? options.exportTimeoutMs ?? DEFAULT_EXPORT_TIMEOUT_MS;
  const serviceName = settings.serviceName ?? options.serviceName ?? 'bridle';
  const exporter = new OTLPTraceExporter({
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: exportTimeoutMs,
  }) as SpanExporter;
  const tracerProvider = new BasicTracerProvider({
    resource: defaultResource().merge(
      resourceFromAttributes({ ...settings.resourceAttributes, 'service.name': serviceName }),
    ),
    spanProcessors: [
      new BatchSpanProcessor(reportingExporter(exporter, report), { exportTimeoutMillis: exportTimeoutMs }),
    ],
  });
  const sink = otelSink({
    tracer: tracerProvider.getTracer(packageJson.name, packageJson.version),
    captureContent: settings.captureContent,
    onError: report,
  });
  // An export in flight may take the whole timeout, and the flush after it as long again.
  const limit = 2 * exportTimeoutMs + 1000;
  let stopped: Promise<void> | undefined;
  return {
    onEvent: sink.onEvent,
    sink,
    tracerProvider,
    endpoint: displayURL(settings.url),
    serviceName,
    captureContent: settings.captureContent,
    exportTimeoutMs,
    forceFlush: () => bounded(tracerProvider.forceFlush(), limit, report),
    shutdown() {
      stopped ??= bounded(tracerProvider.shutdown(), limit, report);
      return stopped;
    },
  };
}
