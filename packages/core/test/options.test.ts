import { ConfigError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { type RunAgentOptions, runAgent } from '../src/index';
import { addTool } from './helpers';

const model = scriptedModel(() => ({ content: 'should never be called' }));

async function rejection(options: Record<string, unknown>): Promise<string> {
  const before = model.requests.length;
  const error = await runAgent({ model, prompt: 'x', ...options } as RunAgentOptions).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(ConfigError.isInstance(error), `expected a ConfigError for ${JSON.stringify(Object.keys(options))}`).toBe(
    true,
  );
  expect(model.requests.length).toBe(before);
  return (error as Error).message;
}

describe('option validation (ConfigError before any model call)', () => {
  it.each([
    [{ maxSteps: 0 }, 'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got number 0.'],
    [{ maxSteps: 1.5 }, 'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got number 1.5.'],
    [
      { maxSteps: Number.POSITIVE_INFINITY },
      'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got number Infinity.',
    ],
    [{ maxSteps: '3' }, 'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got "3".'],
    [
      { maxToolCalls: -1 },
      'Invalid option maxToolCalls: expected an integer >= 0 (a safe integer) or Infinity, got number -1.',
    ],
    [
      { maxToolCalls: Number.NaN },
      'Invalid option maxToolCalls: expected an integer >= 0 (a safe integer) or Infinity, got number NaN.',
    ],
    [
      { timeoutMs: 0 },
      'Invalid option timeoutMs: expected a number of milliseconds above 0 and at most 2147483647, got number 0.',
    ],
    [
      { timeoutMs: 2 ** 31 },
      'Invalid option timeoutMs: expected a number of milliseconds above 0 and at most 2147483647, got number 2147483648.',
    ],
    [
      { toolConcurrency: 0 },
      'Invalid option toolConcurrency: expected an integer >= 1 (a safe integer), got number 0.',
    ],
    [
      { retry: { maxRetries: -1 } },
      'Invalid option retry.maxRetries: expected an integer from 0 to 100, got number -1.',
    ],
    [
      { retry: { maxRetries: 101 } },
      'Invalid option retry.maxRetries: expected an integer from 0 to 100, got number 101.',
    ],
    [
      { retry: { baseDelayMs: -1 } },
      'Invalid option retry.baseDelayMs: expected a number from 0 to 2147483647, got number -1.',
    ],
    [
      { retry: { baseDelayMs: 1000, maxDelayMs: 10 } },
      'Invalid option retry.maxDelayMs: expected a number from 1000 to 2147483647, got number 10.',
    ],
    [{ retry: { retries: 3 } }, 'Unknown option retry.retries. Accepted: maxRetries, baseDelayMs, maxDelayMs.'],
    [
      { context: { maxContextChars: 0 } },
      'Invalid option context.maxContextChars: expected an integer >= 1 (a safe integer), got number 0.',
    ],
    [
      { context: { maxToolResultChars: -5 } },
      'Invalid option context.maxToolResultChars: expected an integer >= 1 (a safe integer), got number -5.',
    ],
    [{ context: 'big' }, 'Invalid option context: expected an object, got "big".'],
    [{ signal: {} }, 'Invalid option signal: expected an AbortSignal, got an object.'],
    [{ onEvent: 'log' }, 'Invalid option onEvent: expected a function or an array of functions, got "log".'],
    [{ approve: true }, 'Invalid option approve: expected a function, got boolean true.'],
    [{ stream: 'yes' }, 'Invalid option stream: expected a boolean, got "yes".'],
    [{ system: 5 }, 'Invalid option system: expected a string, got number 5.'],
    [{ prompt: '' }, 'Invalid option prompt: expected a non-empty string, got "".'],
    [{ tools: {} }, 'Invalid option tools: expected an array of tools, got an object.'],
  ])('%j', async (options, message) => {
    expect(await rejection(options)).toBe(message);
  });

  it('an unknown option is named with the accepted ones (typos do not silently fall back to a default)', async () => {
    expect(await rejection({ maxstep: 3 })).toMatch(
      /^Unknown option maxstep\. Accepted: model, tools, system, prompt, messages, maxSteps/,
    );
  });

  it('exactly one of prompt and messages', async () => {
    const both = await runAgent({ model, prompt: 'x', messages: [{ role: 'user', content: 'y' }] }).catch(
      (error) => error,
    );
    expect(both.message).toBe(
      'Give exactly one of the options prompt (a new conversation) and messages (a transcript to continue).',
    );
    const neither = await runAgent({ model } as RunAgentOptions).catch((error) => error);
    expect(ConfigError.isInstance(neither)).toBe(true);
  });

  it('an invalid transcript in messages is a ConfigError that quotes the problem', async () => {
    const error = await runAgent({ model, messages: [{ role: 'assistant', content: 'hi' }] }).catch((reason) => reason);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^Invalid option messages: Invalid transcript at messages\[0\]: a transcript must start with a user message/,
    );
  });

  it('a model without generate, bad tools and duplicate tool names', async () => {
    expect(await rejection({ model: { id: 'x' } })).toBe(
      'Invalid option model: expected a Model with a generate(request) method, got an object.',
    );
    expect(await rejection({ tools: [addTool(), 'nope'] })).toBe(
      'Invalid option tools[1]: expected a tool with an execute(args, context) function, got "nope".',
    );
    expect(await rejection({ tools: [addTool(), addTool()] })).toMatch(/add/);
    expect(await rejection({ tools: [{ ...addTool(), name: 'bad name' }] })).toMatch(/bad name/);
  });

  it('accepts the edge values', async () => {
    const ok = scriptedModel(() => ({ content: 'fine' }));
    const result = await runAgent({
      model: ok,
      prompt: 'x',
      maxSteps: 1,
      maxToolCalls: Number.POSITIVE_INFINITY,
      timeoutMs: 2_147_483_647,
      toolConcurrency: 1,
      retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
      context: { maxToolResultChars: 1, maxContextChars: 1_000 },
      onEvent: [],
    });
    expect(result.status).toBe('completed');
  });
});
