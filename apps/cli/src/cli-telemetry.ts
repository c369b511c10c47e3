import type { EventObserver } from '@bridle/events';
import type { CommandContext } from './command-context';

/** OpenTelemetry for a command's runs: observers to add, and `close()` to call before exiting. */
export interface CliTelemetry {
  /** The OTel sink's observer when tracing is on; empty otherwise. */
  observers: EventObserver[];
  /** Flushes the spans (bounded by the export timeout); never rejects. */
  close(): Promise<void>;
}

// The CLI is short-lived: a dead collector may hold its exit for this long at most (twice, with a
// flush after an export in flight). OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT overrides it.
const CLI_EXPORT_TIMEOUT_MS = 5000;

/**
 * Turns tracing on for a command's runs when the environment the command resolved (the shell, an
 * `--env-file`; a folder's `.env` never sets `OTEL_*`) names an OTLP endpoint: see `telemetryFromEnv` of
 * `@bridle/otel`, which loads only then. `service.name` defaults to `bridle`. A collector that cannot be
 * reached gives one warning line; the exit code does not change.
 *
 * @throws ConfigError for a malformed `OTEL_*` setting (exit code 2).
 */
export async function openCliTelemetry(context: CommandContext): Promise<CliTelemetry> {
  const { io, errorStyle } = context;
  if (!io.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !io.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) {
    return { observers: [], close: async () => {} };
  }
  const { telemetryFromEnv } = await import('@bridle/otel');
  let endpoint = '';
  const telemetry = telemetryFromEnv(io.env, {
    serviceName: 'bridle',
    exportTimeoutMs: CLI_EXPORT_TIMEOUT_MS,
    onError: (error) =>
      io.stderr.write(
        `${errorStyle.yellow(`bridle: could not send OpenTelemetry spans to ${endpoint}: ${error.message}`)}\n`,
      ),
  });
  if (telemetry === undefined) return { observers: [], close: async () => {} };
  endpoint = telemetry.endpoint;
  return { observers: [telemetry.onEvent], close: () => telemetry.shutdown() };
}
