import type { Telemetry } from '@bridle/otel';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The server's OpenTelemetry from the standard `OTEL_*` variables of its environment (`bridle-server`
 * unless `OTEL_SERVICE_NAME` says otherwise), or undefined when they name no OTLP endpoint. `@bridle/otel`
 * (the OTLP exporter and the SDK: about half a second to load) loads only when an endpoint is set, as in
 * the CLI. A collector that cannot be reached is logged once as a warning; runs never notice. `log` is
 * read when that happens.
 *
 * @throws ConfigError for a malformed `OTEL_*` setting (the server's `listen()` rejects with it).
 */
export async function openServerTelemetry(
  env: Readonly<Record<string, string | undefined>>,
  log: () => FastifyBaseLogger,
): Promise<Telemetry | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return undefined;
  const { telemetryFromEnv } = await import('@bridle/otel');
  let endpoint = '';
  const telemetry = telemetryFromEnv(env, {
    serviceName: 'bridle-server',
    onError: (error) => log().warn({ endpoint, err: error }, 'could not send OpenTelemetry spans'),
  });
  endpoint = telemetry?.endpoint ?? '';
  return telemetry;
}
