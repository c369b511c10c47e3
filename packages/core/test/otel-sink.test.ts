import { otelSink } from '@bridle/events';
import { ProviderError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { addTool, call, tool } from './helpers';

const ERROR = 2;
const UNSET = 0;

function setup(captureContent = false) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const otel = otelSink({ tracer: provider.getTracer('bridle-e2e'), captureContent });
  return { otel, spans: () => exporter.getFinishedSpans() };
}

const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;
const endMs = (span: ReadableSpan | undefined) => (span ? span.endTime[0] * 1000 + span.endTime[1] / 1e6 : Number.NaN);

describe('otelSink on runs of the real runAgent', () => {
  it('traces a run with a retried model call, a tool call and an answer', async () => {
    const { otel, spans } = setup(true);
    const model = scriptedModel(
      [
        new ProviderError({ provider: 'openai', code: 'server', message: 'upstream 503' }),
        { content: '', toolCalls: [call('c1', 'add', { a: 2, b: 3 })], usage: { inputTokens: 10, outputTokens: 4 } },
        { content: 'It is 5', usage: { inputTokens: 20, outputTokens: 3 } },
      ],
      { id: 'openai:gpt-4o-mini' },
    );
    const result = await runAgent({
      model,
      tools: [addTool()],
      prompt: 'What is 2 + 3?',
      retry: { baseDelayMs: 0 },
      onEvent: otel.onEvent,
    });
    expect(result.status).toBe('completed');

    expect(spans().map((span) => [span.name, span.status])).toEqual([
      ['chat gpt-4o-mini', { code: ERROR, message: 'upstream 503' }],
      ['chat gpt-4o-mini', { code: UNSET }],
      ['execute_tool add', { code: UNSET }],
      ['chat gpt-4o-mini', { code: UNSET }],
      ['invoke_agent', { code: UNSET }],
    ]);
    const [failed, first, add, second, run] = spans();
    for (const child of [failed, first, add, second]) expect(parentOf(child)).toBe(run?.spanContext().spanId);
    expect(failed?.attributes).toMatchObject({
      'bridle.attempt': 1,
      'error.type': 'server',
      'bridle.will_retry': true,
    });
    expect(first?.attributes).toMatchObject({ 'bridle.attempt': 2, 'gen_ai.usage.input_tokens': 10 });
    expect(add?.attributes).toMatchObject({
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.call.arguments': '{"a":2,"b":3}',
      'gen_ai.tool.call.result': '5',
    });
    expect(run?.attributes).toMatchObject({
      'bridle.run_id': result.runId,
      'bridle.status': 'completed',
      'bridle.steps': 2,
      'bridle.tool_calls': 1,
      'gen_ai.provider.name': 'openai',
      'gen_ai.usage.input_tokens': 30,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.output.messages':
        '[{"role":"assistant","parts":[{"type":"text","content":"It is 5"}],"finish_reason":"stop"}]',
    });
    for (const child of [failed, first, add, second]) expect(endMs(child)).toBeLessThanOrEqual(endMs(run));
    expect(otel.openRuns).toBe(0);
  });

  const cutBy = (cut: 'abort' | 'timeout', controller: AbortController) =>
    cut === 'abort' ? { signal: controller.signal } : { timeoutMs: 100 };
  const reached = (cut: 'abort' | 'timeout', controller: AbortController) => {
    if (cut === 'abort') queueMicrotask(() => controller.abort(new Error('stop')));
  };

  it.each(['abort', 'timeout'] as const)(
    'ends a model call cut by %s at run_end, with the status as error',
    async (cut) => {
      const { otel, spans } = setup();
      const controller = new AbortController();
      const result = await runAgent({
        model: scriptedModel([
          () => {
            reached(cut, controller);
            return new Promise<never>(() => {});
          },
        ]),
        prompt: 'x',
        onEvent: otel.onEvent,
        ...cutBy(cut, controller),
      });
      const status = cut === 'abort' ? 'aborted' : 'timeout';
      expect(result.status).toBe(status);
      // The loop emits no model_error for a cancelled call: the sink closes the span at run_end.
      expect(spans().map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
        ['chat model', { code: ERROR, message: `the run ended (${status}) before the model call finished` }, status],
        ['invoke_agent', { code: ERROR, message: result.error }, status],
      ]);
      expect(endMs(spans()[0])).toBe(endMs(spans()[1]));
      expect(otel.openRuns).toBe(0);
    },
  );

  it.each(['abort', 'timeout'] as const)('ends a tool cut by %s (ignoring its signal) as failed', async (cut) => {
    const { otel, spans } = setup();
    const controller = new AbortController();
    const stuck = tool('stuck', () => {
      reached(cut, controller);
      return new Promise<never>(() => {});
    });
    const result = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'stuck')] }, { content: 'never' }]),
      tools: [stuck],
      prompt: 'x',
      onEvent: otel.onEvent,
      ...cutBy(cut, controller),
    });
    const status = cut === 'abort' ? 'aborted' : 'timeout';
    expect(result.status).toBe(status);
    // The loop stops waiting and emits the cut call's error result, so the span ends as a failed call.
    expect(spans().map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
      ['chat model', { code: UNSET }, undefined],
      ['execute_tool stuck', { code: ERROR, message: 'the tool call returned an error result' }, 'tool_error'],
      ['invoke_agent', { code: ERROR, message: result.error }, status],
    ]);
    expect(endMs(spans()[1])).toBeLessThanOrEqual(endMs(spans()[2]));
    expect(otel.openRuns).toBe(0);
  });

  it('records no prompt, answer, argument or result without captureContent', async () => {
    const { otel, spans } = setup();
    await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('c1', 'add', { a: 2, b: 3 })] }, { content: 'It is 5' }]),
      tools: [addTool()],
      system: 'secret system',
      prompt: 'secret prompt',
      onEvent: otel.onEvent,
    });
    const dump = JSON.stringify(spans().map((span) => [span.attributes, span.status]));
    for (const secret of ['secret system', 'secret prompt', 'It is 5', '"a"']) expect(dump).not.toContain(secret);
    expect(spans()).toHaveLength(4);
  });
});
