import { type Telemetry, telemetryFromEnv } from '@bridle/otel';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The server's OpenTelemetry from the standard `OTEL_*` variables of its environment (`bridle-server`
 * unless `OTEL_SERVICE_NAME` says otherwise), or undefined when they name no OTLP endpoint. A collector
 * that cannot be reached is logged once as a warning; runs never notice. `log` is read when that happens.
 *
 * @throws ConfigError for a malformed `OTEL_*` setting.
 */
export function serverTelemetry(
  env: Readonly<Record<string, string | undefined>>,
  log: () => FastifyBaseLogger,
): Telemetry | undefined {
  let endpoint = '';
  const telemetry = telemetryFromEnv(env, {
    serviceName: 'bridle-server',
    onError: (error) => log().warn({ endpoint, err: error }, 'could not send OpenTelemetry spans'),
  });
  endpoint = telemetry?.endpoint ?? '';
  return telemetry;
}
