import type { Model, ModelRequest, ModelStreamPart, Tool } from '@bridle/protocol';
import { defineTool } from '@bridle/registry';
import { expectValidTranscript, faultyModel, scriptedModel } from '@bridle/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentResult, type RunAgentOptions, runAgent } from '../src/index';
import { abortListeners, call, recorder, tool, trackCoreTimers, untilAborted } from './helpers';

type Cut = 'abort' | 'timeout';
const never = () => new Promise<never>(() => {});

let timers: ReturnType<typeof trackCoreTimers>;
beforeEach(() => {
  timers = trackCoreTimers();
});
afterEach(() => {
  timers.stop();
});

/**
 * Runs with the given options and cuts the run once `reached` is called: by aborting the caller's
 * signal, or by a 100 ms deadline (long enough that a busy machine still reaches the cut point first). Checks what must hold after every cut run.
 */
async function cutRun(cut: Cut, build: (reached: () => void) => Omit<RunAgentOptions, 'signal' | 'timeoutMs'>) {
  const controller = new AbortController();
  const reached = () => {
    if (cut === 'abort') queueMicrotask(() => controller.abort(new Error('stop')));
  };
  const events = recorder();
  const result = await runAgent({
    ...build(reached),
    onEvent: events.onEvent,
    ...(cut === 'abort' ? { signal: controller.signal } : { timeoutMs: 100 }),
  });
  expect(result.status).toBe(cut === 'abort' ? 'aborted' : 'timeout');
  expectValidTranscript(result.messages);
  expect(events.types().filter((type) => type === 'run_end')).toHaveLength(1);
  expect(events.types().at(-1)).toBe('run_end');
  expect(abortListeners(controller.signal)).toBe(0);
  // Nothing the run created may outlive it: no deadline timer, no backoff timer.
  expect(timers.pending()).toBe(0);
  return { result, events };
}

const toolResults = (result: AgentResult) =>
  result.messages.filter((message) => message.role === 'tool').map((message) => message.content);

const cancelledWord = (cut: Cut) =>
  cut === 'abort' ? 'Cancelled: the run was aborted' : "Timed out: the run's deadline passed";

describe.each<Cut>(['abort', 'timeout'])('cancellation by %s', (cut) => {
  it('during a model call that honours its signal', async () => {
    let signal: AbortSignal | undefined;
    const { result } = await cutRun(cut, (reached) => ({
      model: scriptedModel([
        (request) => {
          signal = request.signal;
          reached();
          return untilAborted(request.signal);
        },
      ]),
      prompt: 'x',
    }));
    expect(signal?.aborted).toBe(true);
    expect(result.steps).toBe(0);
  });

  it('during a model call that ignores its signal (the run stops waiting)', async () => {
    const { result } = await cutRun(cut, (reached) => ({
      model: scriptedModel([
        () => {
          reached();
          return never();
        },
      ]),
      prompt: 'x',
    }));
    expect(result.messages).toHaveLength(1);
  });

  it('during a stream that stalls after its first delta, ignoring its signal', async () => {
    let closed = false;
    const model: Model = {
      id: 'stalling',
      generate: never,
      async *stream(): AsyncIterable<ModelStreamPart> {
        try {
          yield { type: 'text_delta', text: 'Hel' };
          reached?.();
          await never();
        } finally {
          closed = true;
        }
      },
    };
    let reached: (() => void) | undefined;
    const { events } = await cutRun(cut, (r) => {
      reached = r;
      return { model, prompt: 'x', stream: true };
    });
    expect(events.ofType('text_delta').map((event) => event.text)).toEqual(['Hel']);
    expect(closed).toBe(false); // a stalled generator cannot be closed; the run simply stopped waiting
  });

  it.each([0, 1, 2])('during tool %i of a sequential batch (tools honour their signal)', async (at) => {
    const executed: string[] = [];
    const { result } = await cutRun(cut, (reached) => {
      const step = tool('step', (_args, context) => {
        executed.push(context.callId);
        if (context.callId === `c${at}`) {
          reached();
          return untilAborted(context.signal);
        }
        return 'done';
      });
      return {
        model: scriptedModel([
          { content: '', toolCalls: [call('c0', 'step'), call('c1', 'step'), call('c2', 'step')] },
          { content: 'never' },
        ]),
        tools: [step],
        prompt: 'x',
      };
    });
    expect(executed).toEqual(['c0', 'c1', 'c2'].slice(0, at + 1));
    const word = cancelledWord(cut);
    expect(toolResults(result)).toEqual(
      ['c0', 'c1', 'c2'].map((_id, index) =>
        index < at ? 'done' : index === at ? `${word} before step finished.` : `${word} before step started.`,
      ),
    );
    expect(result).toMatchObject({ steps: 1, toolCalls: 3 });
  });

  it('during concurrent readOnly tools that ignore their signal', async () => {
    const { result, events } = await cutRun(cut, (reached) => {
      let started = 0;
      const read = tool(
        'read',
        () => {
          if (++started === 2) reached();
          return never();
        },
        { readOnly: true },
      );
      return {
        model: scriptedModel([{ content: '', toolCalls: [call('a', 'read'), call('b', 'read'), call('c', 'read')] }]),
        tools: [read],
        prompt: 'x',
        toolConcurrency: 2,
      };
    });
    const word = cancelledWord(cut);
    expect(toolResults(result)).toEqual([
      `${word} before read finished.`,
      `${word} before read finished.`,
      `${word} before read started.`,
    ]);
    expect(events.ofType('tool_end').map((event) => event.callId)).toEqual(['a', 'b']);
  });

  it('during an approval hook that never answers', async () => {
    const executed: unknown[] = [];
    const { result } = await cutRun(cut, (reached) => ({
      model: scriptedModel([{ content: '', toolCalls: [call('a', 'rm')] }]),
      tools: [tool('rm', (args) => executed.push(args), { requiresApproval: true })],
      approve: () => {
        reached();
        return never();
      },
      prompt: 'x',
    }));
    expect(executed).toEqual([]);
    // Approvals are decided before any call of the batch starts: rm never started.
    expect(toolResults(result)).toEqual([`${cancelledWord(cut)} before rm started.`]);
  });

  it('during an asynchronous argument validation that never settles', async () => {
    const executed: unknown[] = [];
    let reachedHook: (() => void) | undefined;
    const slowCheck = defineTool({
      name: 'check',
      description: 'validated asynchronously',
      parameters: z.object({ id: z.string() }).refine(async () => {
        reachedHook?.();
        return never();
      }),
      execute: (args) => executed.push(args),
    });
    const { result } = await cutRun(cut, (reached) => {
      reachedHook = reached;
      return {
        model: scriptedModel([{ content: '', toolCalls: [call('a', 'check', { id: '1' })] }]),
        tools: [slowCheck as Tool],
        prompt: 'x',
      };
    });
    expect(executed).toEqual([]);
    expect(toolResults(result)).toEqual([`${cancelledWord(cut)} before check finished.`]);
  });

  it('during an asynchronous structured output check', async () => {
    const { result } = await cutRun(cut, (reached) => ({
      model: scriptedModel([{ content: '{"n": 1}' }]),
      output: z.object({ n: z.number() }).refine(async () => {
        reached();
        return never();
      }),
      prompt: 'x',
    }));
    expect(result.output).toBeUndefined();
    expect(result.answer).toBeUndefined();
  });
});

describe('cancellation details', () => {
  it('an abort right after calling runAgent (no store) ends the run before any model call', async () => {
    const model = scriptedModel(() => ({ content: 'never asked' }));
    const controller = new AbortController();
    const events = recorder();
    const running = runAgent({ model, prompt: 'go', signal: controller.signal, onEvent: events.onEvent });
    controller.abort();
    const result = await running;
    expect(result.status).toBe('aborted');
    expect(model.requests).toHaveLength(0);
    expect(events.types()).toEqual(['run_start', 'run_end']);
  });

  it('an abort during a retry backoff wait ends the run at once (a deadline never does: see below)', async () => {
    const { result, events } = await cutRun('abort', (reached) => {
      const inner = scriptedModel([{ content: 'never' }]);
      return {
        // retryAfterMs makes the wait at least 10 s: only the abort can end the run this soon.
        model: faultyModel(inner, (index) => {
          if (index > 0) return undefined;
          setImmediate(reached); // after the failure, once the backoff wait has started
          return { type: 'provider_error', code: 'server', retryAfterMs: 10_000 };
        }),
        retry: { baseDelayMs: 0 },
        prompt: 'x',
      };
    });
    expect(result.steps).toBe(0);
    expect(events.ofType('model_error')).toEqual([expect.objectContaining({ attempt: 1, willRetry: true })]);
    expect(events.ofType('model_start')).toHaveLength(1);
  });

  it('a deadline shorter than the backoff does not start the wait', async () => {
    const model = faultyModel(scriptedModel([{ content: 'never' }]), {
      0: { type: 'provider_error', code: 'rate_limited', retryAfterMs: 60_000 },
    });
    const events = recorder();
    const result = await runAgent({ model, prompt: 'x', timeoutMs: 1_000, onEvent: events.onEvent });
    expect(result.status).toBe('model_error');
    expect(result.error).toBe(
      "faultyModel: scripted rate_limited on call 1 (not retried: the 60000 ms backoff would pass the run's deadline)",
    );
    expect(events.ofType('model_error')[0]).toMatchObject({ retryable: true, willRetry: false });
    expect(model.requests).toHaveLength(1);
  });

  it('per-call signals: each model call and tool gets its own signal, aborted with the run', async () => {
    const signals: AbortSignal[] = [];
    const controller = new AbortController();
    const spy = tool('spy', (_args, context) => {
      signals.push(context.signal);
      return 'ok';
    });
    const model = scriptedModel([
      (request: ModelRequest) => {
        signals.push(request.signal);
        return { content: '', toolCalls: [call('a', 'spy')] };
      },
      (request: ModelRequest) => {
        signals.push(request.signal);
        controller.abort();
        return untilAborted(request.signal);
      },
    ]);
    const result = await runAgent({ model, tools: [spy], prompt: 'x', signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(new Set(signals).size).toBe(3);
    expect(signals[2]?.aborted).toBe(true);
    expect(signals[0]?.aborted).toBe(false);
    expect(abortListeners(controller.signal)).toBe(0);
    expect(timers.pending()).toBe(0);
  });

  it('a completed run leaves no listener on the caller signal and no timer', async () => {
    const controller = new AbortController();
    const result = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('a', 'spy')] }, { content: 'ok' }]),
      tools: [tool('spy', () => 'x')],
      prompt: 'x',
      signal: controller.signal,
      timeoutMs: 60_000,
    });
    expect(result.status).toBe('completed');
    expect(abortListeners(controller.signal)).toBe(0);
    expect(timers.pending()).toBe(0);
  });

  it('a tool that rejects because its signal aborted is reported as cancelled, not as its error', async () => {
    const controller = new AbortController();
    const result = await runAgent({
      model: scriptedModel([{ content: '', toolCalls: [call('a', 'stop')] }]),
      tools: [
        tool('stop', (_args, context) => {
          controller.abort();
          return Promise.reject(context.signal.reason);
        }),
      ],
      prompt: 'x',
      signal: controller.signal,
    });
    expect(result.status).toBe('aborted');
    expect(toolResults(result)).toEqual(['Cancelled: the run was aborted before stop finished.']);
  });
});
