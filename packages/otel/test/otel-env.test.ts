import { describe, expect, it } from 'vitest';
import { readOtelEnv } from '../src/otel-env';

describe('readOtelEnv', () => {
  it('is off without an endpoint, with OTEL_SDK_DISABLED=true and with OTEL_TRACES_EXPORTER=none', () => {
    expect(readOtelEnv({ OTEL_SERVICE_NAME: 'svc' })).toBeUndefined();
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(readOtelEnv({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(readOtelEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(readOtelEnv({ ...endpoint, OTEL_TRACES_EXPORTER: 'console, otlp' })?.url).toBe(
      'http://collector:4318/v1/traces',
    );
  });

  it('appends /v1/traces to the base endpoint and takes the traces endpoint as it is', () => {
    expect(readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example/prefix/' })?.url).toBe(
      'https://otel.example/prefix/v1/traces',
    );
    expect(
      readOtelEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom',
      })?.url,
    ).toBe('http://collector:4318/custom');
  });

  it('reads headers, timeout, service name, resource attributes and the content opt-in', () => {
    expect(
      readOtelEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=a, broken',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=b',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,deployment.environment=dev',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'True',
      }),
    ).toEqual({
      url: 'http://collector:4318/v1/traces',
      headers: { authorization: 'Bearer abc', 'x-team': 'b' },
      timeoutMs: 2500,
      serviceName: 'from-attributes',
      resourceAttributes: { 'service.name': 'from-attributes', 'deployment.environment': 'dev' },
      captureContent: true,
    });
    const named = readOtelEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'mine',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=other',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: '1',
    });
    expect(named?.serviceName).toBe('mine');
    expect(named?.captureContent).toBe(false);
  });

  it('rejects a non-http endpoint, grpc and a bad timeout with the variable and the fix', () => {
    expect(() => readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4317' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL of an OTLP/HTTP collector, such as http://localhost:4318 (got "localhost:4317").',
    );
    expect(() =>
      readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL=grpc: Bridle sends spans over OTLP/HTTP only.');
    expect(() =>
      readOtelEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '1.5' }),
    ).toThrow('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT must be a positive whole number of milliseconds');
  });
});
