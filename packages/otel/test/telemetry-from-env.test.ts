import { runAgent } from '@bridle/core';
import type { Tool } from '@bridle/protocol';
import { type FakeOtlpCollector, fakeOtlpCollector, scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { telemetryFromEnv } from '../src/telemetry-from-env';

const SECRET = 'sk-test-NEVER-EXPORT-4f1c9a';

const add: Tool<{ a: number; b: number }, number> = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  execute: ({ a, b }) => a + b,
};

let collector: FakeOtlpCollector | undefined;
afterEach(async () => {
  await collector?.close();
  collector = undefined;
});

async function tracedRun(env: Record<string, string>) {
  const telemetry = telemetryFromEnv({ OPENAI_API_KEY: SECRET, ...env }, { exportTimeoutMs: 2000 });
  if (!telemetry) throw new Error('telemetry is off');
  const model = scriptedModel(
    [
      {
        content: '',
        toolCalls: [{ id: 'call-1', name: 'add', arguments: { a: 2, b: 3 } }],
        usage: { inputTokens: 10, outputTokens: 4 },
        finishReason: 'tool_calls',
      },
      { content: 'The sum is 5.', usage: { inputTokens: 20, outputTokens: 6 }, finishReason: 'stop' },
    ],
    { id: 'openai:gpt-test' },
  );
  const result = await runAgent({
    model,
    tools: [add],
    system: 'You add numbers.',
    prompt: 'What is 2 + 3?',
    onEvent: telemetry.onEvent,
  });
  expect(result.status).toBe('completed');
  await telemetry.shutdown();
  return telemetry;
}

describe('telemetryFromEnv', () => {
  it('is undefined without an OTLP endpoint', () => {
    expect(telemetryFromEnv({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('exports invoke_agent, chat and execute_tool spans with gen_ai attributes and no content by default', async () => {
    collector = await fakeOtlpCollector();
    const telemetry = await tracedRun({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
    expect(telemetry.serviceName).toBe('bridle');
    expect(telemetry.endpoint).toBe(`${collector.url}/v1/traces`);
    const spans = await collector.waitForSpans(4);
    expect(spans.map((span) => span.name).sort()).toEqual([
      'chat gpt-test',
      'chat gpt-test',
      'execute_tool add',
      'invoke_agent',
    ]);
    const root = spans.find((span) => span.name === 'invoke_agent');
    expect(root?.parentSpanId).toBeUndefined();
    for (const span of spans.filter((span) => span !== root)) {
      expect(span.parentSpanId).toBe(root?.spanId);
      expect(span.traceId).toBe(root?.traceId);
    }
    expect(root?.resource['service.name']).toBe('bridle');
    expect(root?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 10,
    });
    const chats = spans.filter((span) => span.name === 'chat gpt-test');
    expect(chats.map((span) => span.kind)).toEqual([3, 3]); // OTLP SPAN_KIND_CLIENT
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 4,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(spans.find((span) => span.name === 'execute_tool add')?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
    });
    const bytes = collector.requests.map((request) => request.body).join('\n');
    for (const content of ['What is 2 + 3?', 'You add numbers.', 'The sum is 5.', '{"a":2', SECRET]) {
      expect(bytes).not.toContain(content);
    }
    expect(bytes).not.toMatch(/gen_ai\.(input|output)\.messages|gen_ai\.tool\.call\.(arguments|result)/);
  });

  it('records prompts, answers, tool arguments and results with the opt-in, never the API key', async () => {
    collector = await fakeOtlpCollector();
    const telemetry = await tracedRun({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_SERVICE_NAME: 'my-agent',
    });
    expect(telemetry.captureContent).toBe(true);
    const spans = await collector.waitForSpans(4);
    const root = spans.find((span) => span.name === 'invoke_agent');
    expect(root?.resource['service.name']).toBe('my-agent');
    expect(JSON.parse(String(root?.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'What is 2 + 3?' }] },
    ]);
    expect(JSON.parse(String(root?.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'You add numbers.' },
    ]);
    expect(String(root?.attributes['gen_ai.output.messages'])).toContain('The sum is 5.');
    const tool = spans.find((span) => span.name === 'execute_tool add');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"a":2,"b":3}');
    expect(tool?.attributes['gen_ai.tool.call.result']).toBe('5');
    const bytes = collector.requests.map((request) => `${JSON.stringify(request.headers)}${request.body}`).join('\n');
    expect(bytes).not.toContain(SECRET);
  });

  it('sends OTEL_EXPORTER_OTLP_HEADERS with each export', async () => {
    collector = await fakeOtlpCollector();
    await tracedRun({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=abc%20123',
    });
    expect(collector.requests[0]?.headers['x-collector-token']).toBe('abc 123');
  });

  it('reports an unreachable collector once and still shuts down', async () => {
    collector = await fakeOtlpCollector();
    const url = collector.url;
    await collector.close();
    collector = undefined;
    const errors: Error[] = [];
    const telemetry = telemetryFromEnv(
      { OTEL_EXPORTER_OTLP_ENDPOINT: url },
      { onError: (error) => errors.push(error), exportTimeoutMs: 1000 },
    );
    for (let run = 0; run < 2; run++) {
      const model = scriptedModel([{ content: 'hi' }]);
      const result = await runAgent({ model, prompt: 'x', onEvent: telemetry?.onEvent });
      expect(result.status).toBe('completed');
      await telemetry?.forceFlush();
    }
    await telemetry?.shutdown();
    expect(errors).toHaveLength(1);
  });

  it('gives up on a collector that never answers after the export timeout', async () => {
    collector = await fakeOtlpCollector({ hang: true });
    const errors: Error[] = [];
    const telemetry = telemetryFromEnv(
      { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TIMEOUT: '300' },
      { onError: (error) => errors.push(error) },
    );
    expect(telemetry?.exportTimeoutMs).toBe(300);
    await runAgent({ model: scriptedModel([{ content: 'hi' }]), prompt: 'x', onEvent: telemetry?.onEvent });
    await telemetry?.shutdown();
    expect(collector.requests.length).toBeGreaterThan(0);
    expect(errors).toHaveLength(1);
  });
});
