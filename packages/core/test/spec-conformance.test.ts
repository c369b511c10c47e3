// Black-box conformance to SPEC "@bridle/core": options, limits, model errors, tool dispatch and results.
// One `it` per SPEC sentence that states a behaviour; only the public API is used. The rest of SPEC is in
// spec-conformance-{scheduling,run,robustness,agent}.test.ts.
import { boundToolResult } from '@bridle/context';
import { ConfigError, type Message, type Tool, TranscriptError } from '@bridle/protocol';
import { expectValidTranscript, faultyModel, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { ask, doubleTool, probeTool } from './conformance-helpers';

const answer = { content: 'done' };

describe('SPEC: invalid options reject with ConfigError before any model call', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['both prompt and messages', { prompt: 'hi', messages: [{ role: 'user', content: 'hi' }] }],
    ['neither prompt nor messages', {}],
    ['maxSteps 0', { prompt: 'hi', maxSteps: 0 }],
    ['maxSteps 1.5', { prompt: 'hi', maxSteps: 1.5 }],
    ['maxSteps Infinity', { prompt: 'hi', maxSteps: Number.POSITIVE_INFINITY }],
    ['maxSteps NaN', { prompt: 'hi', maxSteps: Number.NaN }],
    ['maxSteps beyond safe integers', { prompt: 'hi', maxSteps: 2 ** 53 }],
    ['maxToolCalls -1', { prompt: 'hi', maxToolCalls: -1 }],
    ['maxToolCalls 0.5', { prompt: 'hi', maxToolCalls: 0.5 }],
    ['maxToolCalls NaN', { prompt: 'hi', maxToolCalls: Number.NaN }],
    ['toolConcurrency 0', { prompt: 'hi', toolConcurrency: 0 }],
    ['timeoutMs 0', { prompt: 'hi', timeoutMs: 0 }],
    ['timeoutMs -5', { prompt: 'hi', timeoutMs: -5 }],
    ['retry.maxRetries -1', { prompt: 'hi', retry: { maxRetries: -1 } }],
    ['context.maxToolResultChars 0', { prompt: 'hi', context: { maxToolResultChars: 0 } }],
    ['context.maxContextChars -1', { prompt: 'hi', context: { maxContextChars: -1 } }],
  ];
  for (const [name, options] of cases) {
    it(`rejects ${name}`, async () => {
      const model = scriptedModel([answer]);
      await expect(runAgent({ model, ...options } as never)).rejects.toBeInstanceOf(ConfigError);
      expect(model.requests).toHaveLength(0);
    });
  }

  it('names the option and the accepted range', async () => {
    const model = scriptedModel([answer]);
    await expect(runAgent({ model, prompt: 'hi', maxSteps: 0 })).rejects.toThrow(
      'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got number 0.',
    );
    // 2^53 is an integer >= 1, so the message must say why it is refused.
    await expect(runAgent({ model, prompt: 'hi', maxSteps: 2 ** 53 })).rejects.toThrow(/safe integer/);
    await expect(runAgent({ model, prompt: 'hi', maxToolCalls: -1 })).rejects.toThrow(
      'Invalid option maxToolCalls: expected an integer >= 0 (a safe integer) or Infinity, got number -1.',
    );
  });

  it('accepts maxToolCalls 0 and Infinity', async () => {
    for (const maxToolCalls of [0, Number.POSITIVE_INFINITY]) {
      const result = await runAgent({ model: scriptedModel([answer]), prompt: 'hi', maxToolCalls });
      expect(result.status).toBe('completed');
    }
  });

  // SPEC: "Invalid options reject with ConfigError before any model call", and `messages` is an option.
  // Decision: a `messages` transcript that fails assertTranscript is an invalid option, so it rejects with
  // ConfigError (code invalid_config, like every other option mistake, which is what a caller catching
  // option errors expects), carrying assertTranscript's TranscriptError as `cause` for the details.
  it('rejects a `messages` transcript that fails assertTranscript with ConfigError (cause TranscriptError)', async () => {
    const model = scriptedModel([answer]);
    const invalid: Message[] = [{ role: 'assistant', content: 'I speak first' }];
    const error = await runAgent({ model, messages: invalid }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('invalid_config');
    expect((error as Error).cause).toBeInstanceOf(TranscriptError);
    expect((error as Error).message).toMatch(/^Invalid option messages: .*must start with a user message/);
    expect(model.requests).toHaveLength(0);
  });

  it('rejects an empty `messages` array and an unmatched tool batch with ConfigError', async () => {
    const model = scriptedModel([answer]);
    const unmatched: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'double', arguments: { a: 1 } }] },
    ];
    for (const messages of [[], unmatched])
      await expect(runAgent({ model, messages })).rejects.toBeInstanceOf(ConfigError);
    expect(model.requests).toHaveLength(0);
  });

  it('never mutates the `messages` it continues', async () => {
    const messages: Message[] = [{ role: 'user', content: 'hi' }];
    const frozen = structuredClone(messages);
    const result = await runAgent({ model: scriptedModel([answer]), messages });
    expect(messages).toEqual(frozen);
    expect(result.messages).toEqual([...frozen, { role: 'assistant', content: 'done' }]);
  });
});

describe('SPEC: steps and toolCalls accounting', () => {
  it('steps counts model calls that returned a response; retried failures do not count', async () => {
    const model = faultyModel(scriptedModel([answer]), {
      0: { type: 'provider_error', code: 'rate_limited' },
      1: { type: 'provider_error', code: 'server' },
    });
    const result = await runAgent({ model, prompt: 'hi', retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(3);
    expect(result.steps).toBe(1);
  });

  it('toolCalls counts every call of admitted batches, failed ones included', async () => {
    const double = doubleTool();
    const model = scriptedModel([
      ask(['c1', 'double', { a: 1 }], ['c2', 'nope']),
      ask(['c3', 'double', { a: 'x' }], ['c4', 'double', { a: 2 }], ['c5', 'double', { a: 3 }]),
      answer,
    ]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi' });
    expect(result).toMatchObject({ status: 'completed', steps: 3, toolCalls: 5 });
    expect(double.calls).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });

  it('when the last allowed step asks for tools, that batch still runs, then step_limit', async () => {
    const double = doubleTool();
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }]), ask(['c2', 'double', { a: 2 }]), answer]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi', maxSteps: 2 });
    expect(result).toMatchObject({ status: 'step_limit', steps: 2, toolCalls: 2 });
    expect(model.requests).toHaveLength(2);
    expect(double.calls).toEqual([{ a: 1 }, { a: 2 }]);
    expect(result.messages.at(-1)).toEqual({
      role: 'tool',
      callId: 'c2',
      name: 'double',
      content: '4',
      isError: false,
    });
    expect(result.answer).toBeUndefined();
    expectValidTranscript(result.messages);
  });

  it('the last step batch runs only budget permitting: over budget it is tool_limit', async () => {
    const double = doubleTool();
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }], ['c2', 'double', { a: 2 }])]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi', maxSteps: 1, maxToolCalls: 1 });
    expect(result).toMatchObject({ status: 'tool_limit', steps: 1, toolCalls: 0 });
    expect(double.calls).toEqual([]);
  });
});

describe('SPEC: a batch larger than the remaining tool budget is rejected whole', () => {
  it('status tool_limit, none of it runs, the assistant message is not appended', async () => {
    const double = doubleTool();
    const model = scriptedModel([
      ask(['c1', 'double', { a: 1 }], ['c2', 'double', { a: 2 }]),
      ask(['c3', 'double', { a: 3 }], ['c4', 'double', { a: 4 }]),
      answer,
    ]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi', maxToolCalls: 3 });
    expect(result).toMatchObject({ status: 'tool_limit', steps: 2, toolCalls: 2 });
    expect(double.calls).toEqual([{ a: 1 }, { a: 2 }]);
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(model.requests).toHaveLength(2);
    expectValidTranscript(result.messages);
  });

  it('a batch exactly the size of the remaining budget is admitted', async () => {
    const double = doubleTool();
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }], ['c2', 'double', { a: 2 }]), answer]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi', maxToolCalls: 2 });
    expect(result).toMatchObject({ status: 'completed', toolCalls: 2, answer: 'done' });
  });

  it('maxToolCalls 0 rejects any batch, and still lets a plain answer complete', async () => {
    const double = doubleTool();
    const limited = await runAgent({
      model: scriptedModel([ask(['c1', 'double', { a: 1 }])]),
      tools: [double],
      prompt: 'hi',
      maxToolCalls: 0,
    });
    expect(limited).toMatchObject({ status: 'tool_limit', toolCalls: 0, messages: [{ role: 'user', content: 'hi' }] });
    expect(double.calls).toEqual([]);
  });

  it('maxToolCalls Infinity admits a batch of 50', async () => {
    const double = doubleTool();
    const batch = ask(
      ...Array.from({ length: 50 }, (_, i): [string, string, unknown] => [`c${i}`, 'double', { a: i }]),
    );
    const result = await runAgent({ model: scriptedModel([batch, answer]), tools: [double], prompt: 'hi' });
    expect(result).toMatchObject({ status: 'completed', toolCalls: 50 });
  });
});

describe('SPEC: an invalid model response or a thrown model error gives model_error, not appended', () => {
  it('an invalid response (content not a string) is model_error and not appended', async () => {
    const model = faultyModel(scriptedModel([]), { 0: { type: 'malformed' } });
    const result = await runAgent({ model, prompt: 'hi' });
    expect(result.status).toBe('model_error');
    expect(result.messages).toEqual([{ role: 'user', content: 'hi' }]);
    // Decision: an invalid value is not "a response", so it does not count as a step (README agrees).
    expect(result.steps).toBe(0);
    expect(result.error).toMatch(/content/);
  });

  it('a response with duplicate tool call ids is model_error and no tool runs', async () => {
    const double = doubleTool();
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }], ['c1', 'double', { a: 2 }])]);
    const result = await runAgent({ model, tools: [double], prompt: 'hi' });
    expect(result.status).toBe('model_error');
    expect(result.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(double.calls).toEqual([]);
  });

  it('a thrown plain Error is model_error with its message, not retried', async () => {
    const model = faultyModel(scriptedModel([answer]), { 0: { type: 'throw', message: 'kaput' } });
    const result = await runAgent({ model, prompt: 'hi', retry: { baseDelayMs: 1 } });
    expect(result.status).toBe('model_error');
    expect(result.error).toContain('kaput');
    expect(model.requests).toHaveLength(1);
    expect(result.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('a non-retryable ProviderError is not retried', async () => {
    const model = faultyModel(scriptedModel([answer]), { 0: { type: 'provider_error', code: 'auth' } });
    const result = await runAgent({ model, prompt: 'hi', retry: { baseDelayMs: 1 } });
    expect(result.status).toBe('model_error');
    expect(model.requests).toHaveLength(1);
  });

  it('a retryable ProviderError is retried maxRetries times, then model_error', async () => {
    const model = faultyModel(scriptedModel([answer]), () => ({ type: 'provider_error', code: 'server' }));
    const result = await runAgent({ model, prompt: 'hi', retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    expect(result).toMatchObject({ status: 'model_error', steps: 0 });
    expect(model.requests).toHaveLength(3);
  });
});

describe('SPEC: failed tool calls become isError tool messages the model may recover from', () => {
  async function oneCall(tool: Tool | undefined, call: [string, string, unknown?], options = {}) {
    const model = scriptedModel([ask(call), answer]);
    const result = await runAgent({ model, tools: tool ? [tool] : [], prompt: 'hi', ...options });
    expect(result.status).toBe('completed');
    expectValidTranscript(result.messages);
    return result.messages[2] as Extract<Message, { role: 'tool' }>;
  }

  it('unknown tool: "Unknown tool: x"', async () => {
    const message = await oneCall(doubleTool(), ['c1', 'x']);
    expect(message).toMatchObject({ role: 'tool', callId: 'c1', name: 'x', isError: true });
    expect(message.content).toMatch(/^Unknown tool: x(\.|$)/);
  });

  it('invalid arguments: "Invalid arguments: $.a: ..." and execute is never called', async () => {
    const double = doubleTool();
    const message = await oneCall(double, ['c1', 'double', { a: 'one' }]);
    expect(message.isError).toBe(true);
    expect(message.content).toMatch(/^Invalid arguments: \$\.a: \S/);
    expect(double.calls).toEqual([]);
  });

  it('invalid arguments at the root (a non-JSON string) never reach execute', async () => {
    const double = doubleTool();
    const message = await oneCall(double, ['c1', 'double', '{"a": 1']);
    expect(message.content).toMatch(/^Invalid arguments: \$: /);
    expect(double.calls).toEqual([]);
  });

  it('a tool that throws: the thrown message', async () => {
    const failing = probeTool('fail', () => {
      throw new Error('disk on fire');
    });
    const message = await oneCall(failing, ['c1', 'fail']);
    expect(message).toMatchObject({ isError: true, content: 'disk on fire' });
  });

  it('a tool that rejects asynchronously: the rejection message', async () => {
    const failing = probeTool('fail', async () => Promise.reject(new Error('later fire')));
    expect(await oneCall(failing, ['c1', 'fail'])).toMatchObject({ isError: true, content: 'later fire' });
  });

  it('requiresApproval without an approve hook is denied: "Denied: ..." and never executed', async () => {
    const guarded = probeTool('rm', () => 'removed', { requiresApproval: true });
    const message = await oneCall(guarded, ['c1', 'rm']);
    expect(message.isError).toBe(true);
    expect(message.content).toMatch(/^Denied: \S/);
    expect(guarded.calls).toEqual([]);
  });

  it('an approve hook that returns false denies', async () => {
    const guarded = probeTool('rm', () => 'removed', { requiresApproval: true });
    const message = await oneCall(guarded, ['c1', 'rm'], { approve: () => false });
    expect(message.content).toMatch(/^Denied: /);
    expect(guarded.calls).toEqual([]);
  });

  it('an approve hook that throws (or rejects) denies', async () => {
    for (const approve of [
      () => {
        throw new Error('hook broke');
      },
      async () => Promise.reject(new Error('hook broke')),
    ]) {
      const guarded = probeTool('rm', () => 'removed', { requiresApproval: true });
      const message = await oneCall(guarded, ['c1', 'rm'], { approve });
      expect(message.content).toMatch(/^Denied: /);
      expect(guarded.calls).toEqual([]);
    }
  });

  it('an approve hook returning true runs the tool; it receives the call and the tool', async () => {
    const guarded = probeTool('rm', () => 'removed', { requiresApproval: true });
    const seen: unknown[] = [];
    const approve = async (call: unknown, tool: Tool) => {
      seen.push(call, tool.name);
      return true;
    };
    const message = await oneCall(guarded, ['c1', 'rm', { path: 'x' }], { approve });
    expect(message).toMatchObject({ isError: false, content: 'removed' });
    expect(seen).toEqual([{ id: 'c1', name: 'rm', arguments: { path: 'x' } }, 'rm']);
  });

  it('a requiresApproval call with invalid arguments is refused before the hook is asked', async () => {
    let asked = 0;
    const guarded: Tool = { ...doubleTool(), requiresApproval: true };
    const message = await oneCall(guarded, ['c1', 'double', { a: 'x' }], { approve: () => ++asked > 0 });
    expect(message.content).toMatch(/^Invalid arguments: \$\.a: /);
    expect(asked).toBe(0);
  });

  it('tools without requiresApproval never ask the hook', async () => {
    let asked = 0;
    const message = await oneCall(doubleTool(), ['c1', 'double', { a: 2 }], { approve: () => ++asked > 0 });
    expect(message.content).toBe('4');
    expect(asked).toBe(0);
  });
});

describe('SPEC: tool results are strings verbatim, JSON otherwise, bounded by maxToolResultChars', () => {
  async function resultOf(value: unknown, options = {}) {
    const tool = probeTool('give', () => value);
    const model = scriptedModel([ask(['c1', 'give']), answer]);
    const result = await runAgent({ model, tools: [tool], prompt: 'hi', ...options });
    return result.messages[2] as Extract<Message, { role: 'tool' }>;
  }

  it('a string is passed verbatim (even one that looks like JSON)', async () => {
    expect((await resultOf('"quoted" {json}')).content).toBe('"quoted" {json}');
    expect((await resultOf('')).content).toBe('');
  });

  it('anything else is JSON', async () => {
    expect((await resultOf({ a: [1, 'b'], c: null })).content).toBe('{"a":[1,"b"],"c":null}');
    expect((await resultOf(42)).content).toBe('42');
    expect((await resultOf(false)).content).toBe('false');
    expect((await resultOf(null)).content).toBe('null');
  });

  it('undefined becomes null', async () => {
    const message = await resultOf(undefined);
    expect(message).toMatchObject({ content: 'null', isError: false });
  });

  it('the result is bounded by maxToolResultChars exactly as boundToolResult does', async () => {
    const long = `${'a'.repeat(500)}${'z'.repeat(500)}`;
    expect((await resultOf(long, { context: { maxToolResultChars: 100 } })).content).toBe(boundToolResult(long, 100));
    const json = { list: Array.from({ length: 200 }, (_, i) => i) };
    expect((await resultOf(json, { context: { maxToolResultChars: 50 } })).content).toBe(
      boundToolResult(JSON.stringify(json), 50),
    );
  });

  it('a result that fits is unchanged', async () => {
    expect((await resultOf('x'.repeat(100), { context: { maxToolResultChars: 100 } })).content).toBe('x'.repeat(100));
  });

  it('a thrown message is bounded too', async () => {
    const failing = probeTool('fail', () => {
      throw new Error('e'.repeat(1000));
    });
    const model = scriptedModel([ask(['c1', 'fail']), answer]);
    const result = await runAgent({ model, tools: [failing], prompt: 'hi', context: { maxToolResultChars: 60 } });
    expect((result.messages[2] as { content: string }).content).toBe(boundToolResult('e'.repeat(1000), 60));
  });
});
