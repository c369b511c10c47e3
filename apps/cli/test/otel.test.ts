import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type FakeOtlpCollector,
  type FakeOtlpSpan,
  type FakeProviderServer,
  fakeOpenAIServer,
  fakeOtlpCollector,
} from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

// Each test starts the CLI, which loads the OpenTelemetry SDK too: on a busy machine that takes seconds.
const SLOW = { timeout: 60_000 };

const KEY = 'sk-test-otel-NEVER-IN-A-SPAN-93b1';
const usage = { inputTokens: 10, outputTokens: 5 };
const calculatorThenAnswer = [
  {
    content: '',
    toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '6 * 7' } }],
    usage,
  },
  { content: 'The answer is 42.', usage },
];

let server: FakeProviderServer | undefined;
let collector: FakeOtlpCollector | undefined;
afterEach(async () => {
  await server?.close();
  await collector?.close();
  server = undefined;
  collector = undefined;
});

function env(fake: FakeProviderServer, extra: Record<string, string> = {}) {
  return cliEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseURL, BRIDLE_MODEL: 'openai:fake-model', ...extra });
}

/** Every byte the collector received: bodies and headers. */
function received(otlp: FakeOtlpCollector): string {
  return otlp.requests.map((request) => `${JSON.stringify(request.headers)}\n${request.body}`).join('\n');
}

function expectRunTree(spans: FakeOtlpSpan[]) {
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
  expect(root.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.request.model': 'fake-model',
    'gen_ai.usage.input_tokens': 20,
    'gen_ai.usage.output_tokens': 10,
    'bridle.status': 'completed',
  });
  for (const chat of spans.filter((span) => span.name === 'chat fake-model')) {
    expect(chat.kind).toBe(3); // client
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'fake-model' });
  }
  expect(spans.find((span) => span.name === 'execute_tool calculator')?.attributes).toMatchObject({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'calculator',
    'gen_ai.tool.call.id': 'call_1',
  });
  return root;
}

describe('bridle run with OpenTelemetry', SLOW, () => {
  it('exports invoke_agent, chat and execute_tool spans before it exits, without content or keys by default', async () => {
    server = await fakeOpenAIServer(calculatorThenAnswer);
    collector = await fakeOtlpCollector();
    const result = await runCli(['run', 'What is 6 * 7?'], {
      env: env(server, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The answer is 42.\n');
    expect(result.stderr).not.toContain('OpenTelemetry');
    // Received before the process exited: the CLI flushed.
    const root = expectRunTree(collector.spans());
    expect(root.resource['service.name']).toBe('bridle');
    const bytes = received(collector);
    for (const text of ['What is 6 * 7?', '6 * 7', 'The answer is 42.', KEY]) expect(bytes).not.toContain(text);
  });

  it('records the prompt, answer, tool arguments and result with the opt-in, and OTEL_SERVICE_NAME', async () => {
    server = await fakeOpenAIServer(calculatorThenAnswer);
    collector = await fakeOtlpCollector();
    const result = await runCli(['run', 'What is 6 * 7?'], {
      env: env(server, {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
        OTEL_SERVICE_NAME: 'my-cli',
      }),
    });
    expect(result.code).toBe(0);
    const spans = collector.spans();
    const root = expectRunTree(spans);
    expect(root.resource['service.name']).toBe('my-cli');
    expect(String(root.attributes['gen_ai.input.messages'])).toContain('What is 6 * 7?');
    expect(String(root.attributes['gen_ai.output.messages'])).toContain('The answer is 42.');
    const tool = spans.find((span) => span.name === 'execute_tool calculator');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"expression":"6 * 7"}');
    expect(tool?.attributes['gen_ai.tool.call.result']).toBe('{"expression":"6 * 7","result":42}');
    expect(received(collector)).not.toContain(KEY);
  });

  it('an unreachable collector costs one warning line: the run succeeds with its exit code', async () => {
    server = await fakeOpenAIServer([{ content: 'Hello.', usage }]);
    const closed = await fakeOtlpCollector();
    const url = closed.url;
    await closed.close();
    const result = await runCli(['run', 'Say hello'], { env: env(server, { OTEL_EXPORTER_OTLP_ENDPOINT: url }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello.\n');
    const warnings = result.stderr.split('\n').filter((line) => line.includes('OpenTelemetry'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^bridle: could not send OpenTelemetry spans to ${url}/v1/traces: `));
  });

  it('a collector that never answers is given up after the export timeout', async () => {
    server = await fakeOpenAIServer([{ content: 'Hello.', usage }]);
    collector = await fakeOtlpCollector({ hang: true });
    const result = await runCli(['run', 'Say hello'], {
      env: env(server, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TIMEOUT: '500' }),
    });
    expect(result.code).toBe(0);
    expect(collector.requests).toHaveLength(1);
    expect(result.stderr.split('\n').filter((line) => line.includes('OpenTelemetry'))).toHaveLength(1);
  });

  it("ignores OTEL_* in a folder's .env (workspace trust)", async () => {
    server = await fakeOpenAIServer([{ content: 'One.', usage }]);
    collector = await fakeOtlpCollector();
    const dir = tempDir();
    writeFileSync(join(dir, '.env'), `OTEL_EXPORTER_OTLP_ENDPOINT=${collector.url}\n`);
    const ignored = await runCli(['run', 'one'], { env: env(server), cwd: dir });
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toContain('ignored OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(collector.requests).toHaveLength(0);
  });

  it("takes OTEL_* from --env-file, the user's explicit choice", async () => {
    server = await fakeOpenAIServer([{ content: 'Two.', usage }]);
    collector = await fakeOtlpCollector();
    const dir = tempDir();
    writeFileSync(join(dir, 'telemetry.env'), `OTEL_EXPORTER_OTLP_ENDPOINT=${collector.url}\n`);
    const chosen = await runCli(['run', 'two', '--env-file', 'telemetry.env'], { env: env(server), cwd: dir });
    expect(chosen.code).toBe(0);
    expect(collector.spans().map((span) => span.name)).toEqual(['chat fake-model', 'invoke_agent']);
  });

  it('a malformed endpoint is a usage error before any model call', async () => {
    server = await fakeOpenAIServer([{ content: 'Hello.', usage }]);
    const result = await runCli(['run', 'Say hello'], {
      env: env(server, { OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL');
    expect(server.requests).toHaveLength(0);
  });
});

describe('bridle batch with OpenTelemetry', SLOW, () => {
  it('exports one invoke_agent span per item', async () => {
    server = await fakeOpenAIServer([
      { content: 'A.', usage },
      { content: 'B.', usage },
    ]);
    collector = await fakeOtlpCollector();
    const dir = tempDir();
    writeFileSync(join(dir, 'in.jsonl'), '{"id":"a","prompt":"a"}\n{"id":"b","prompt":"b"}\n');
    const result = await runCli(['batch', 'in.jsonl', '-o', 'out.jsonl', '--concurrency', '1'], {
      env: env(server, { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    const runs = collector.spans().filter((span) => span.name === 'invoke_agent');
    expect(runs).toHaveLength(2);
    expect(new Set(runs.map((span) => span.traceId)).size).toBe(2);
  });
});

describe('bridle chat with OpenTelemetry', SLOW, () => {
  it('exports one invoke_agent span per turn; with the opt-in a turn records the conversation so far', async () => {
    server = await fakeOpenAIServer([
      { content: 'Hi!', usage },
      { content: 'Still here.', usage },
    ]);
    collector = await fakeOtlpCollector();
    const result = await runCli(['chat'], {
      env: env(server, {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      }),
      input: 'hello\nare you there?\n',
    });
    expect(result.code).toBe(0);
    const runs = collector.spans().filter((span) => span.name === 'invoke_agent');
    expect(runs).toHaveLength(2);
    const second = JSON.parse(String(runs[1]?.attributes['gen_ai.input.messages'])) as { role: string }[];
    expect(second.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(second)).toContain('are you there?');
    expect(received(collector)).not.toContain(KEY);
  });
});
