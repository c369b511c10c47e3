export { type OtelEnv, type OtelSettings, readOtelEnv } from './otel-env';
export { reportingExporter } from './reporting-exporter';
export { type Telemetry, type TelemetryOptions, telemetryFromEnv } from './telemetry-from-env';
