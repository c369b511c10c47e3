import { describe, expect, it } from 'vitest';
import { ModelResponseError, validateModelResponse } from '../src/index';

function problem(value: unknown): string {
  try {
    validateModelResponse(value);
  } catch (error) {
    expect(ModelResponseError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected validateModelResponse to throw');
}

describe('validateModelResponse', () => {
  it('accepts well-formed responses', () => {
    for (const value of [
      { content: '' },
      { content: 'hi', usage: { inputTokens: 0, outputTokens: 3 } },
      { content: '', toolCalls: [] },
      { content: '', toolCalls: [{ id: 'a', name: 't', arguments: undefined }] },
      {
        content: '',
        toolCalls: [
          { id: 'a', name: 't', arguments: '{not json' },
          { id: 'b', name: 't', arguments: {} },
        ],
      },
      { content: 'x', toolCalls: undefined, usage: undefined },
    ]) {
      expect(() => validateModelResponse(value)).not.toThrow();
    }
  });

  it('names what is wrong', () => {
    expect(problem(null)).toContain('expected an object, got null');
    expect(problem([])).toContain('expected an object, got an array');
    expect(problem('text')).toContain('expected an object, got "text"');
    expect(problem({})).toContain('content must be a string, got undefined');
    expect(problem({ content: 42 })).toContain('content must be a string, got number 42');
    expect(problem({ content: '', toolCalls: null })).toContain('toolCalls must be an array when present, got null');
    expect(problem({ content: '', toolCalls: {} })).toContain('toolCalls must be an array');
    expect(problem({ content: '', toolCalls: [null] })).toContain('toolCalls[0] must be an object, got null');
    expect(problem({ content: '', toolCalls: [{ id: '', name: 't', arguments: {} }] })).toContain(
      'toolCalls[0].id must be a non-empty string, got ""',
    );
    expect(problem({ content: '', toolCalls: [{ id: 1, name: 't', arguments: {} }] })).toContain('toolCalls[0].id');
    expect(problem({ content: '', toolCalls: [{ id: 'a', name: '', arguments: {} }] })).toContain(
      'toolCalls[0].name must be a non-empty string',
    );
    expect(problem({ content: '', toolCalls: [{ id: 'a', name: 't' }] })).toContain(
      'toolCalls[0] has no own "arguments" key',
    );
    expect(
      problem({
        content: '',
        toolCalls: [
          { id: 'a', name: 't', arguments: 1 },
          { id: 'a', name: 'u', arguments: 2 },
        ],
      }),
    ).toContain('toolCalls[1].id "a" is used by an earlier call');
    expect(problem({ content: '', usage: null })).toContain('usage must be an object');
    expect(problem({ content: '', usage: { inputTokens: Number.NaN, outputTokens: 0 } })).toContain(
      'usage.inputTokens must be a finite number >= 0, got number NaN',
    );
    expect(problem({ content: '', usage: { inputTokens: 1, outputTokens: -1 } })).toContain('usage.outputTokens');
    expect(problem({ content: '', usage: { inputTokens: 1, outputTokens: Number.POSITIVE_INFINITY } })).toContain(
      'usage.outputTokens',
    );
    expect(problem({ content: '', usage: { inputTokens: '1', outputTokens: 0 } })).toContain('usage.inputTokens');
  });

  it('requires the two token counts of a usage; the other parts may be absent, and are checked when present', () => {
    expect(problem({ content: '', usage: { inputTokens: 1 } })).toContain(
      'usage.outputTokens must be a finite number >= 0, got undefined',
    );
    expect(problem({ content: '', usage: { outputTokens: 1 } })).toContain('usage.inputTokens');
    expect(() => validateModelResponse({ content: '', usage: { inputTokens: 1, outputTokens: 2 } })).not.toThrow();
    for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens', 'costUsd']) {
      const usage = { inputTokens: 1, outputTokens: 2, [key]: 0 };
      expect(() => validateModelResponse({ content: '', usage })).not.toThrow();
      expect(problem({ content: '', usage: { inputTokens: 1, outputTokens: 2, [key]: -1 } })).toContain(`usage.${key}`);
    }
  });

  it('does not accept an inherited arguments key', () => {
    const call = Object.assign(Object.create({ arguments: {} }), { id: 'a', name: 't' });
    expect(problem({ content: '', toolCalls: [call] })).toContain('no own "arguments" key');
  });

  it('says what shape is expected', () => {
    expect(problem(undefined)).toContain('A model must resolve to { content: string');
  });
});

describe('validateModelResponse: second-release fields', () => {
  const call = (args: unknown) => ({ content: '', toolCalls: [{ id: 'c1', name: 't', arguments: args }] });

  it('rejects tool call arguments that are not JSON values', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => validateModelResponse(call(cyclic))).toThrow(
      /toolCalls\[0\]\.arguments must be JSON \(arguments\.self: a reference cycle/,
    );
    expect(() => validateModelResponse(call({ n: 1n }))).toThrow(/arguments\.n: a bigint is not JSON/);
    expect(() => validateModelResponse(call({ f: () => 1 }))).toThrow(/arguments\.f: a function is not JSON/);
    expect(() => validateModelResponse(call([Number.NaN]))).toThrow(/arguments\[0\]: NaN is not a JSON number/);
    expect(() => validateModelResponse(call(new Date(0)))).toThrow(/a Date instance is not JSON/);
    // Flat values (only primitives inside) follow the same rules.
    class Point {
      x = 1;
    }
    expect(() => validateModelResponse(call(new Point()))).toThrow(/arguments: a Point instance is not JSON/);
    expect(() => validateModelResponse(call({ a: 1, b: Number.POSITIVE_INFINITY }))).toThrow(
      /arguments\.b: Infinity is not a JSON number/,
    );
    expect(() => validateModelResponse(call(Object.create({ inherited: 1 })))).toThrow(/an? \w+ instance is not JSON/);
    expect(() => validateModelResponse(call({ a: 'x', b: null, c: true, d: -0.5 }))).not.toThrow();
  });

  it('accepts raw strings, deep JSON and optional usage fields', () => {
    let deep: unknown = 'leaf';
    for (let index = 0; index < 20_000; index++) deep = [deep];
    expect(() => validateModelResponse(call('{not json'))).not.toThrow();
    expect(() => validateModelResponse(call(deep))).not.toThrow();
    expect(() =>
      validateModelResponse({
        content: 'x',
        finishReason: 'length',
        model: 'openai:gpt-4o-mini',
        providerData: { blocks: [{ type: 'thinking', signature: 'abc' }] },
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 8, reasoningTokens: 1, costUsd: 0.0001 },
      }),
    ).not.toThrow();
  });

  it('rejects an unknown finishReason, non-JSON providerData and a negative optional usage count', () => {
    expect(() => validateModelResponse({ content: '', finishReason: 'max_tokens' })).toThrow(
      /finishReason must be one of stop, length, tool_calls, content_filter, error, other, got "max_tokens"/,
    );
    expect(() => validateModelResponse({ content: '', providerData: { x: undefined } })).toThrow(
      /providerData must be JSON \(providerData\.x: undefined is not JSON\)/,
    );
    expect(() =>
      validateModelResponse({ content: '', usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: -1 } }),
    ).toThrow(/usage\.cacheReadTokens must be a finite number >= 0/);
    for (const model of ['', 42, null]) {
      expect(() => validateModelResponse({ content: '', model })).toThrow(
        /model must be a non-empty string when present \(the id of the model that answered\)/,
      );
    }
  });
});
