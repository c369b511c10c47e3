import { ConfigError } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import {
  assistantMessages,
  jsonText,
  outputFinishReason,
  systemInstructions,
  transcriptMessages,
  truncate,
  userMessages,
} from './otel-content';
import { modelIdAttributes } from './otel-model-id';
import { epochMsOf, spanContext, toHrTime } from './otel-span-context';
import type { OtelAttributes, OtelContext, OtelSpan, OtelTracer } from './otel-types';
import type { EventObserver, RunEvent, RunEventOf } from './types';

/** Options of {@link otelSink}. */
export interface OtelSinkOptions {
  /** Where spans go, e.g. `trace.getTracer('my-app')` or `provider.getTracer('bridle')`. */
  tracer: OtelTracer;
  /**
   * Record prompts, system prompts, answers, model text, tool arguments and tool results (and tool error
   * text) as span attributes. Default `false`: spans carry names, ids, counts, timings and statuses only.
   */
  captureContent?: boolean;
  /** Each captured text (and each error message) is cut to this many characters. Default 4096. */
  maxAttributeChars?: number;
  /**
   * At most this many runs are tracked at once (a run is tracked from `run_start` to `run_end`). When
   * another starts, the oldest is ended with an error and reported to `onError`. Default 10,000.
   */
  maxOpenRuns?: number;
  /** Hears every error the tracer throws and every evicted run. Errors never reach the run. */
  onError?: (error: unknown) => void;
}

/** An OpenTelemetry observer: pass `onEvent` to a run (or to several runs at once). */
export interface OtelSink {
  /** Turns events into spans. Never throws. */
  onEvent: EventObserver;
  /** Runs started and not yet ended (their state is dropped at `run_end`). */
  readonly openRuns: number;
}

// Numeric values of the API's enums (SpanKind, SpanStatusCode): this package never imports the API.
const KIND_INTERNAL = 0;
const KIND_CLIENT = 2;
const STATUS_ERROR = 2;
const DEFAULT_MAX_ATTRIBUTE_CHARS = 4096;
const DEFAULT_MAX_OPEN_RUNS = 10_000;

interface OpenSpan {
  span: OtelSpan;
  startMs: number;
}

interface RunState extends OpenSpan {
  context: OtelContext;
  /** Attributes every model span of the run starts with. */
  modelAttributes: OtelAttributes;
  modelName: string;
  /** Open model call spans by step (one attempt of a step is in flight at a time). */
  models: Map<number, OpenSpan>;
  /** Open tool call spans by call id. */
  tools: Map<string, OpenSpan>;
  /** The latest end time given to a child span, so the run span ends no earlier. */
  lastEndMs: number;
}

/**
 * Turns run events into OpenTelemetry spans following the GenAI semantic conventions: an `invoke_agent`
 * span per run (parented by the context active at `run_start`), and inside it a `chat <model>` span per
 * model call attempt (a retried attempt is its own span, ended with an error) and an
 * `execute_tool <name>` span per tool call. Span times come from the events' timestamps and durations.
 * Runs may interleave through one sink. At `run_end`, spans still open (a tool or model call cut by a
 * timeout or an abort) are ended with an error, and the run's state is dropped. The package never loads
 * `@opentelemetry/api` itself: the caller brings the tracer. Never throws once created.
 *
 * @throws ConfigError when `tracer` is not a tracer or a limit is not a positive integer.
 */
export function otelSink(options: OtelSinkOptions): OtelSink {
  const { tracer, captureContent = false, onError } = options;
  if (typeof tracer?.startSpan !== 'function') {
    throw new ConfigError('otelSink: `tracer` must be an OpenTelemetry Tracer, e.g. trace.getTracer("my-app")');
  }
  const maxChars = integerOption('maxAttributeChars', options.maxAttributeChars, DEFAULT_MAX_ATTRIBUTE_CHARS, {
    min: 1,
    where: 'otelSink',
  });
  const maxOpenRuns = integerOption('maxOpenRuns', options.maxOpenRuns, DEFAULT_MAX_OPEN_RUNS, {
    min: 1,
    where: 'otelSink',
  });
  const runs = new Map<string, RunState>();

  const report = (error: unknown) => {
    try {
      onError?.(error);
    } catch {
      // A throwing error hook must not reach the run either.
    }
  };

  const fail = (span: OtelSpan, message: string, errorType: string) => {
    span.setAttribute('error.type', errorType);
    span.setStatus({ code: STATUS_ERROR, message: truncate(message, maxChars) });
  };

  const endRun = (run: RunState, event: RunEventOf<'run_end'> | undefined, reason: string) => {
    const endMs = Math.max(event ? epochMsOf(event.timestamp) : Date.now(), run.lastEndMs);
    const status = event?.status ?? 'dropped';
    for (const [kind, spans] of [
      ['model call', run.models],
      ['tool call', run.tools],
    ] as const) {
      for (const open of spans.values()) {
        fail(open.span, `the run ended (${status}) before the ${kind} finished`, status);
        open.span.end(toHrTime(Math.max(endMs, open.startMs)));
      }
    }
    const { span } = run;
    if (event) {
      span.setAttributes({
        'bridle.status': event.status,
        'bridle.steps': event.steps,
        'bridle.tool_calls': event.toolCalls,
        'gen_ai.usage.input_tokens': event.usage.inputTokens,
        'gen_ai.usage.output_tokens': event.usage.outputTokens,
      });
      if (captureContent && event.answer !== undefined) {
        span.setAttribute('gen_ai.output.messages', assistantMessages(event.answer, 'stop', maxChars));
      }
    }
    if (event?.status !== 'completed') fail(span, event?.error ?? reason, status);
    span.end(toHrTime(endMs));
  };

  const startRun = (event: RunEventOf<'run_start'>) => {
    const previous = runs.get(event.runId);
    if (previous) {
      runs.delete(event.runId);
      endRun(previous, undefined, `run ${event.runId} started again before its run_end`);
    }
    if (runs.size >= maxOpenRuns) {
      const [oldestId, oldest] = runs.entries().next().value as [string, RunState];
      runs.delete(oldestId);
      const message = `otelSink: more than ${maxOpenRuns} runs open at once (maxOpenRuns); run ${oldestId} was ended without its run_end`;
      endRun(oldest, undefined, message);
      report(new Error(message));
    }
    const { model, attributes: modelAttributes } = modelIdAttributes(event.model);
    const common: OtelAttributes = { ...modelAttributes, 'bridle.run_id': event.runId };
    const attributes: OtelAttributes = { 'gen_ai.operation.name': 'invoke_agent', ...common };
    if (event.sessionId !== undefined) attributes['gen_ai.conversation.id'] = event.sessionId;
    if (captureContent && event.system !== undefined) {
      attributes['gen_ai.system_instructions'] = systemInstructions(event.system, maxChars);
    }
    if (captureContent && event.prompt !== undefined) {
      attributes['gen_ai.input.messages'] = userMessages(event.prompt, maxChars);
    } else if (captureContent && event.messages !== undefined) {
      attributes['gen_ai.input.messages'] = transcriptMessages(event.messages, maxChars);
    }
    const startMs = epochMsOf(event.timestamp);
    // No context argument: the SDK parents the run span with the context active now (inside runAgent's
    // synchronous start), so a run inside a request handler's span nests under it.
    const span = tracer.startSpan('invoke_agent', { kind: KIND_INTERNAL, startTime: toHrTime(startMs), attributes });
    runs.set(event.runId, {
      span,
      startMs,
      context: spanContext(span),
      modelAttributes: { 'gen_ai.operation.name': 'chat', ...common },
      modelName: `chat ${model}`,
      models: new Map(),
      tools: new Map(),
      lastEndMs: startMs,
    });
  };

  const startChild = (run: RunState, name: string, kind: number, timestamp: string, attributes: OtelAttributes) => {
    const startMs = Math.max(epochMsOf(timestamp), run.startMs);
    const span = tracer.startSpan(name, { kind, startTime: toHrTime(startMs), attributes }, run.context);
    return { span, startMs };
  };

  const endChild = (run: RunState, open: OpenSpan, endMs: number) => {
    const end = Math.max(endMs, open.startMs);
    run.lastEndMs = Math.max(run.lastEndMs, end);
    open.span.end(toHrTime(end));
  };

  const handle = (event: RunEvent) => {
    if (event.type === 'run_start') return startRun(event);
    const run = runs.get(event.runId);
    if (!run) return; // A run this sink did not see start (or already ended): nothing to attach to.
    switch (event.type) {
      case 'model_start': {
        const attributes = { ...run.modelAttributes, 'bridle.step': event.step, 'bridle.attempt': event.attempt };
        const stale = run.models.get(event.step);
        if (stale) {
          fail(stale.span, 'a new attempt started before this one ended', '_OTHER');
          endChild(run, stale, epochMsOf(event.timestamp));
        }
        run.models.set(event.step, startChild(run, run.modelName, KIND_CLIENT, event.timestamp, attributes));
        return;
      }
      case 'model_end': {
        const open = run.models.get(event.step);
        if (!open) return;
        run.models.delete(event.step);
        open.span.setAttributes({
          'gen_ai.usage.input_tokens': event.usage.inputTokens,
          'gen_ai.usage.output_tokens': event.usage.outputTokens,
          'bridle.tool_calls': event.toolCalls,
        });
        if (event.finishReason !== undefined)
          open.span.setAttribute('gen_ai.response.finish_reasons', [event.finishReason]);
        if (event.model !== undefined)
          open.span.setAttribute('gen_ai.response.model', modelIdAttributes(event.model).model);
        if (captureContent) {
          const finishReason = outputFinishReason(event.finishReason, event.toolCalls);
          open.span.setAttribute('gen_ai.output.messages', assistantMessages(event.content, finishReason, maxChars));
        }
        endChild(run, open, open.startMs + event.durationMs);
        return;
      }
      case 'model_error': {
        const open = run.models.get(event.step);
        if (!open) return;
        run.models.delete(event.step);
        open.span.setAttributes({ 'bridle.retryable': event.retryable, 'bridle.will_retry': event.willRetry });
        fail(open.span, event.error, event.code ?? '_OTHER');
        endChild(run, open, epochMsOf(event.timestamp));
        return;
      }
      case 'tool_start': {
        const attributes: OtelAttributes = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.name,
          'gen_ai.tool.call.id': event.callId,
          'gen_ai.tool.type': 'function',
          'bridle.run_id': event.runId,
          'bridle.step': event.step,
        };
        if (captureContent) attributes['gen_ai.tool.call.arguments'] = truncate(jsonText(event.arguments), maxChars);
        const stale = run.tools.get(event.callId);
        if (stale) {
          fail(stale.span, `tool call id ${event.callId} was used again before this call ended`, '_OTHER');
          endChild(run, stale, epochMsOf(event.timestamp));
        }
        run.tools.set(
          event.callId,
          startChild(run, `execute_tool ${event.name}`, KIND_INTERNAL, event.timestamp, attributes),
        );
        return;
      }
      case 'tool_end': {
        const open = run.tools.get(event.callId);
        if (!open) return;
        run.tools.delete(event.callId);
        if (captureContent) open.span.setAttribute('gen_ai.tool.call.result', truncate(event.result, maxChars));
        if (event.isError) {
          fail(open.span, captureContent ? event.result : 'the tool call returned an error result', 'tool_error');
        }
        endChild(run, open, open.startMs + event.durationMs);
        return;
      }
      case 'run_end':
        runs.delete(event.runId);
        endRun(run, event, event.status);
        return;
      case 'text_delta':
        return; // Streamed text is in model_end's content; a span event per delta would be noise.
    }
  };

  const onEvent: EventObserver = (event) => {
    try {
      handle(event);
    } catch (error) {
      // A broken tracer (or a malformed event) must not reach the run. State is still dropped at run_end,
      // which deletes it before touching any span.
      report(error);
    }
  };

  return {
    onEvent,
    get openRuns() {
      return runs.size;
    },
  };
}
