import { ConfigError } from '@bridle/protocol';

/** Environment variables as the apps resolve them (the shell's, an `--env-file`'s). */
export type OtelEnv = Readonly<Record<string, string | undefined>>;

/** What the standard `OTEL_*` variables ask for, read by {@link readOtelEnv}. */
export interface OtelSettings {
  /** Where spans are POSTed: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  url: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` with `OTEL_EXPORTER_OTLP_TRACES_HEADERS` on top (values URL-decoded). */
  headers: Record<string, string>;
  /** `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT` / `OTEL_EXPORTER_OTLP_TIMEOUT` in milliseconds, when set. */
  timeoutMs?: number;
  /** `OTEL_SERVICE_NAME`, else `service.name` of `OTEL_RESOURCE_ATTRIBUTES`, when set. */
  serviceName?: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` (`key=value,...`, values URL-decoded). */
  resourceAttributes: Record<string, string>;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: prompts, answers, tool arguments and results go into spans. */
  captureContent: boolean;
}

function setting(env: OtelEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The first of `names` that is set, with its name. */
function first(env: OtelEnv, ...names: string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = setting(env, name);
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

/** `key=value,key2=value2` (the OTel list format), values URL-decoded; malformed entries are skipped. */
function keyValueList(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (text ?? '').split(',')) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const key = entry.slice(0, equals).trim();
    const raw = entry.slice(equals + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: keep it as written.
    }
    if (key !== '') out[key] = value;
  }
  return out;
}

function httpURL(name: string, value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(
      `${name} must be an http(s) URL of an OTLP/HTTP collector, such as http://localhost:4318 (got "${value}").`,
    );
  }
  return url;
}

/**
 * Reads the standard OpenTelemetry variables. Undefined when tracing is off: no endpoint
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`), `OTEL_SDK_DISABLED=true`, or an
 * `OTEL_TRACES_EXPORTER` list without `otlp` (e.g. `none`). Spans go over OTLP/HTTP (JSON), which
 * collectors accept for `http/protobuf` too.
 *
 * @throws ConfigError for an endpoint that is not an http(s) URL, the `grpc` protocol, or a timeout that
 * is not a positive integer.
 */
export function readOtelEnv(env: OtelEnv): OtelSettings | undefined {
  if (setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = setting(env, 'OTEL_TRACES_EXPORTER');
  if (exporters !== undefined && !exporters.split(',').some((name) => name.trim().toLowerCase() === 'otlp')) {
    return undefined;
  }
  const signal = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (signal === undefined && base === undefined) return undefined;
  let url: string;
  if (signal !== undefined) url = httpURL('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal).href;
  else {
    const parsed = httpURL('OTEL_EXPORTER_OTLP_ENDPOINT', base as string);
    if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
    parsed.pathname += 'v1/traces';
    url = parsed.href;
  }
  const protocol = first(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol.value.toLowerCase() === 'grpc') {
    throw new ConfigError(
      `${protocol.name}=grpc: Bridle sends spans over OTLP/HTTP only. Set ${protocol.name}=http/json (or http/protobuf) and point the endpoint at the collector's HTTP port (4318 by default).`,
    );
  }
  const timeout = first(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT');
  let timeoutMs: number | undefined;
  if (timeout !== undefined) {
    timeoutMs = Number(timeout.value);
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError(
        `${timeout.name} must be a positive whole number of milliseconds, such as 5000 (got "${timeout.value}").`,
      );
    }
  }
  const resourceAttributes = keyValueList(setting(env, 'OTEL_RESOURCE_ATTRIBUTES'));
  const serviceName = setting(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'];
  return {
    url,
    headers: {
      ...keyValueList(setting(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
      ...keyValueList(setting(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(serviceName === undefined ? {} : { serviceName }),
    resourceAttributes,
    captureContent: setting(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true',
  };
}
