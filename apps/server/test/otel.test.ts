import {
  type FakeOtlpCollector,
  type FakeOtlpSpan,
  type FakeProviderServer,
  fakeOpenAIServer,
  fakeOtlpCollector,
  scriptedModel,
} from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson, startTestServer } from './helpers';

const KEY = 'sk-test-server-otel-NEVER-IN-A-SPAN-51e0';
const usage = { inputTokens: 10, outputTokens: 5 };

let provider: FakeProviderServer | undefined;
let collector: FakeOtlpCollector | undefined;
afterEach(async () => {
  await provider?.close();
  await collector?.close();
  provider = undefined;
  collector = undefined;
});

async function chatOnce(extraEnv: Record<string, string>, options: { telemetry?: boolean } = {}) {
  provider = await fakeOpenAIServer([
    {
      content: '',
      toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '6 * 7' } }],
      usage,
    },
    { content: 'It is 42.', usage },
  ]);
  collector = await fakeOtlpCollector();
  const server = await startTestServer({
    env: {
      BRIDLE_MODEL: 'openai:fake-model',
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: provider.baseURL,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      ...extraEnv,
    },
    ...options,
  });
  const { status, body } = await postJson(`${server.url}/api/chat`, { prompt: 'What is 6 * 7?' });
  expect(status).toBe(200);
  expect(body).toMatchObject({ answer: 'It is 42.', status: 'completed' });
  // Shutting down flushes the spans.
  await server.shutdown();
  return { spans: collector.spans(), sessionId: body.sessionId as string, bytes: received(collector) };
}

function received(otlp: FakeOtlpCollector): string {
  return otlp.requests.map((request) => `${JSON.stringify(request.headers)}\n${request.body}`).join('\n');
}

function tree(spans: FakeOtlpSpan[]) {
  expect(spans.map((span) => span.name).sort()).toEqual([
    'chat fake-model',
    'chat fake-model',
    'execute_tool calculator',
    'invoke_agent',
  ]);
  const root = spans.find((span) => span.name === 'invoke_agent') as FakeOtlpSpan;
  expect(root.parentSpanId).toBeUndefined();
  for (const child of spans.filter((span) => span !== root)) {
    expect(child.parentSpanId).toBe(root.spanId);
    expect(child.traceId).toBe(root.traceId);
  }
  return root;
}

describe('OpenTelemetry in the server', () => {
  it('exports a /api/chat run as invoke_agent, chat and execute_tool spans, without content or keys', async () => {
    const { spans, sessionId, bytes } = await chatOnce({});
    const root = tree(spans);
    expect(root.resource['service.name']).toBe('bridle-server');
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'fake-model',
      'gen_ai.conversation.id': sessionId,
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 10,
    });
    expect(spans.find((span) => span.name === 'execute_tool calculator')?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': 'call_1',
    });
    for (const text of ['What is 6 * 7?', '6 * 7', 'It is 42.', KEY]) expect(bytes).not.toContain(text);
  });

  it('records content with the opt-in under OTEL_SERVICE_NAME, never the key', async () => {
    const { spans, bytes } = await chatOnce({
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_SERVICE_NAME: 'agents-api',
    });
    const root = tree(spans);
    expect(root.resource['service.name']).toBe('agents-api');
    expect(String(root.attributes['gen_ai.input.messages'])).toContain('What is 6 * 7?');
    expect(String(root.attributes['gen_ai.output.messages'])).toContain('It is 42.');
    const tool = spans.find((span) => span.name === 'execute_tool calculator');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"expression":"6 * 7"}');
    expect(tool?.attributes['gen_ai.tool.call.result']).toBe('{"expression":"6 * 7","result":42}');
    expect(bytes).not.toContain(KEY);
  });

  it('telemetry: false turns it off whatever the environment says', async () => {
    const { spans } = await chatOnce({}, { telemetry: false });
    expect(spans).toEqual([]);
    expect(collector?.requests).toHaveLength(0);
  });

  it('a malformed OTEL_* setting is a ConfigError at startup (listen rejects)', async () => {
    await expect(
      startTestServer({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_TIMEOUT: '0' },
      }),
    ).rejects.toThrow('OTEL_EXPORTER_OTLP_TIMEOUT must be a positive whole number of milliseconds');
  });

  it('logs one warning for a collector that cannot be reached; the runs answer as usual', async () => {
    const closed = await fakeOtlpCollector();
    const url = closed.url;
    await closed.close();
    const lines: string[] = [];
    const server = await startTestServer({
      model: scriptedModel(() => ({ content: 'ok', usage })),
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
      logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } },
    });
    for (const prompt of ['one', 'two']) {
      const { status, body } = await postJson(`${server.url}/api/chat`, { prompt });
      expect(status).toBe(200);
      expect(body).toMatchObject({ answer: 'ok', status: 'completed' });
    }
    await server.shutdown();
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => /OpenTelemetry/.test(entry.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ msg: 'could not send OpenTelemetry spans', endpoint: `${url}/v1/traces` });
  });
});
