// Black-box conformance: runAgent never rejects once started (odd models, odd tool results, throwing
// validators), leaves nothing behind, and keeps the transcript's record of tool arguments intact.
import { getEventListeners } from 'node:events';
import type { Message, Model, Tool } from '@bridle/protocol';
import { expectValidTranscript, faultyModel, scriptedModel } from '@bridle/testing';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { runAgent } from '../src/index';
import { ask, doubleTool, probeTool, settle } from './conformance-helpers';

const answer = { content: 'done' };

describe('SPEC: runAgent never rejects because a model or tool failed', () => {
  const weird: [string, Partial<Model>, Tool[]?][] = [
    [
      'a model whose generate throws synchronously',
      {
        generate: () => {
          throw new Error('sync');
        },
      },
    ],
    ['a model that throws a non-Error', { generate: () => Promise.reject(undefined) }],
    [
      'a model response with a throwing getter',
      {
        generate: async () =>
          Object.defineProperty({ content: '' }, 'toolCalls', {
            get() {
              throw new Error('getter');
            },
            enumerable: true,
          }) as never,
      },
    ],
    [
      'a stream that ends without a response',
      {
        stream: async function* () {
          yield { type: 'text_delta', text: 'hi' } as const;
        },
      },
    ],
    [
      'a stream that yields junk',
      {
        stream: async function* () {
          yield 42 as never;
        },
      },
    ],
  ];
  for (const [name, model] of weird) {
    it(`resolves with model_error for ${name}`, async () => {
      const result = await runAgent({
        model: { id: 'weird', generate: async () => answer, ...model },
        prompt: 'hi',
        stream: true,
        retry: { maxRetries: 0 },
      });
      expect(result.status).toBe('model_error');
      expectValidTranscript(result.messages);
    });
  }

  const weirdResults: [string, () => unknown][] = [
    ['a BigInt', () => 10n],
    [
      'a cycle',
      () => {
        const value: Record<string, unknown> = {};
        value.self = value;
        return value;
      },
    ],
    [
      'a throwing toJSON',
      () => ({
        toJSON() {
          throw new Error('no json');
        },
      }),
    ],
    [
      'a thrown non-Error',
      () => {
        throw 'a string';
      },
    ],
    [
      'a thrown null',
      () => {
        throw null;
      },
    ],
    [
      'an Error whose message getter throws',
      () => {
        throw Object.defineProperty(new Error(), 'message', {
          get() {
            throw new Error('x');
          },
        });
      },
    ],
  ];
  for (const [name, execute] of weirdResults) {
    it(`resolves with an isError result for a tool giving ${name}`, async () => {
      const model = scriptedModel([ask(['c1', 'weird']), answer]);
      const result = await runAgent({ model, tools: [probeTool('weird', execute)], prompt: 'hi' });
      expect(result.status).toBe('completed');
      expectValidTranscript(result.messages);
      expect(result.messages[2]).toMatchObject({ role: 'tool', isError: true });
    });
  }
});

describe('runAgent never rejects: more paths', () => {
  it('an output validator that throws fails the answer: the model is told, and the step limit ends it', async () => {
    const output = z.object({ sum: z.number() }).refine(() => {
      throw new Error('validator exploded');
    });
    const model = scriptedModel([{ content: '{"sum": 1}' }, { content: '{"sum": 2}' }]);
    const result = await runAgent({ model, prompt: 'hi', output, maxSteps: 2 });
    expect(result.status).toBe('step_limit');
    expect(result.error).toContain('the output validator threw: validator exploded');
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('the output validator threw: validator exploded');
    expectValidTranscript(result.messages);
  });

  it('tool names like __proto__ and constructor are unknown tools, not prototype members', async () => {
    const model = scriptedModel([ask(['c1', '__proto__'], ['c2', 'constructor'], ['c3', 'toString']), answer]);
    const result = await runAgent({ model, tools: [doubleTool()], prompt: 'hi' });
    expect(result.messages.slice(2, 5).map((message) => message.content)).toEqual([
      'Unknown tool: __proto__',
      'Unknown tool: constructor',
      'Unknown tool: toString',
    ]);
  });

  it('leaves no listener and no timer after an aborted run with a tool ignoring its signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const controller = new AbortController();
      const stubborn = probeTool('stubborn', () => new Promise(() => {}));
      const model = scriptedModel([ask(['c1', 'stubborn'], ['c2', 'stubborn'])]);
      const run = runAgent({ model, tools: [stubborn], prompt: 'hi', signal: controller.signal, timeoutMs: 60_000 });
      await settle();
      controller.abort();
      expect((await run).status).toBe('aborted');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves no listener and no timer after a timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const controller = new AbortController();
      const model = faultyModel(scriptedModel([]), { 0: { type: 'hang', ignoreSignal: true } });
      const run = runAgent({ model, prompt: 'hi', signal: controller.signal, timeoutMs: 1000 });
      await vi.advanceTimersByTimeAsync(1000);
      expect((await run).status).toBe('timeout');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('transcript integrity: a tool mutating its arguments', () => {
  // SPEC is silent. Decision: the transcript records what the model asked for, so a tool that mutates
  // the arguments object it receives must not rewrite history (OpenAI Agents SDK keeps arguments as a
  // JSON string, so its transcript is immune too).
  it('does not change the assistant message of the transcript, nor what later steps send', async () => {
    const mutating = probeTool('mutate', (args) => {
      (args as { list: number[]; added?: boolean }).list.push(99);
      (args as { added?: boolean }).added = true;
      return 'ok';
    });
    const model = scriptedModel([ask(['c1', 'mutate', { list: [1] }]), answer]);
    const result = await runAgent({ model, tools: [mutating], prompt: 'hi' });
    const assistant = result.messages[1] as Extract<Message, { role: 'assistant' }>;
    expect(assistant.toolCalls?.[0]?.arguments).toEqual({ list: [1] });
    const sent = model.requests[1]?.messages[1] as Extract<Message, { role: 'assistant' }>;
    expect(sent.toolCalls?.[0]?.arguments).toEqual({ list: [1] });
  });

  it('the recorded copy keeps an own "__proto__" key as a key, and a cyclic argument is an invalid model response (SPEC: arguments must be JSON)', async () => {
    const echo = probeTool('echo', () => 'ok');
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const model = scriptedModel([ask(['c1', 'echo', parsed]), answer]);
    const result = await runAgent({ model, tools: [echo], prompt: 'hi' });
    const recorded = (result.messages[1] as Extract<Message, { role: 'assistant' }>).toolCalls?.[0]?.arguments;
    expect(Object.keys(recorded as object)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(recorded)).toBe(Object.prototype);
    expect(JSON.stringify(recorded)).toBe('{"__proto__":{"polluted":true},"a":1}');

    const cyclicModel: Model = {
      id: 'cyclic',
      generate: async (request) => (request.messages.length > 1 ? answer : ask(['c1', 'echo', cyclic])),
    };
    const second = await runAgent({ model: cyclicModel, tools: [echo], prompt: 'hi', retry: { maxRetries: 0 } });
    expect(second.status).toBe('model_error');
    expect(second.error).toMatch(/toolCalls\[0\]\.arguments must be JSON \(arguments\.self: a reference cycle/);
    expect(second.messages).toHaveLength(1);
  });
});
