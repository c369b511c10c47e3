import { defineTool } from '@bridle/registry';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgent } from '../src/index';
import { addTool, call, deferred, recorder, tool } from './helpers';

/** Runs one batch then a final answer; returns the result and the tool messages. */
async function oneBatch(tools: Parameters<typeof runAgent>[0]['tools'], calls: ReturnType<typeof call>[], extra = {}) {
  const model = scriptedModel([{ content: '', toolCalls: calls }, { content: 'done' }]);
  const result = await runAgent({ model, tools, prompt: 'go', ...extra });
  expectValidTranscript(result.messages);
  return { result, results: result.messages.filter((message) => message.role === 'tool') };
}

describe('tool dispatch', () => {
  it('unknown tool, invalid arguments and a throwing tool become error results the model sees', async () => {
    const add = addTool();
    const thrower = tool('explode', () => {
      throw new Error('disk on fire');
    });
    const { result, results } = await oneBatch(
      [add, thrower],
      [
        call('u', 'nope'),
        call('i', 'add', { a: 'one', b: 2 }),
        call('t', 'explode'),
        call('ok', 'add', { a: 2, b: 2 }),
      ],
    );
    expect(result.status).toBe('completed');
    expect(results).toEqual([
      { role: 'tool', callId: 'u', name: 'nope', content: 'Unknown tool: nope', isError: true },
      {
        role: 'tool',
        callId: 'i',
        name: 'add',
        content: expect.stringMatching(/^Invalid arguments: \$\.a: /),
        isError: true,
      },
      { role: 'tool', callId: 't', name: 'explode', content: 'disk on fire', isError: true },
      { role: 'tool', callId: 'ok', name: 'add', content: '4', isError: false },
    ]);
    expect(add.calls).toEqual([{ a: 2, b: 2 }]);
    expect(result.toolCalls).toBe(4);
  });

  it('raw non-JSON argument strings never reach execute', async () => {
    const add = addTool();
    const { results } = await oneBatch([add], [call('r', 'add', '{"a": 1,')]);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid arguments: \$: /) });
    expect(add.calls).toEqual([]);
  });

  it('a Standard Schema (zod) tool gets the parsed value', async () => {
    const seen: unknown[] = [];
    const shout = defineTool({
      name: 'shout',
      description: 'upper-case',
      parameters: z.object({ text: z.string().min(1) }),
      execute: ({ text }) => {
        seen.push(text);
        return text.toUpperCase();
      },
    });
    const { results } = await oneBatch([shout], [call('a', 'shout', { text: 'hi' }), call('b', 'shout', { text: '' })]);
    expect(results[0]).toMatchObject({ content: 'HI', isError: false });
    expect(results[1]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Invalid arguments: \$\.text: /),
    });
    expect(seen).toEqual(['hi']);
  });

  it('results are stringified: strings verbatim, others as JSON, undefined as null', async () => {
    const values: Record<string, unknown> = {
      s: 'plain "text"',
      o: { a: [1, 2] },
      u: undefined,
      n: 42,
      f: false,
      z: null,
    };
    const tools = Object.keys(values).map((key) => tool(key, () => values[key]));
    const { results } = await oneBatch(
      tools,
      Object.keys(values).map((key) => call(`c-${key}`, key)),
    );
    expect(results.map((message) => [message.content, message.isError])).toEqual([
      ['plain "text"', false],
      ['{"a":[1,2]}', false],
      ['null', false],
      ['42', false],
      ['false', false],
      ['null', false],
    ]);
  });

  it('a result JSON cannot hold (BigInt, cycle) becomes an error result', async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const { results } = await oneBatch(
      [tool('big', () => 10n), tool('loop', () => cycle), tool('async', async () => ({ ok: true }))],
      [call('b', 'big'), call('l', 'loop'), call('a', 'async')],
    );
    expect(results[0]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Tool big returned a result that cannot be converted to JSON: /),
    });
    expect(results[1]).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Tool loop returned a result that cannot be converted to JSON: /),
    });
    expect(results[2]).toMatchObject({ isError: false, content: '{"ok":true}' });
  });

  it('a tool that throws a non-Error or rejects is reported', async () => {
    const { results } = await oneBatch(
      [
        tool('str', () => {
          throw 'plain string';
        }),
        tool('obj', () => Promise.reject({ weird: true })),
        tool('empty', () => {
          throw new Error('');
        }),
      ],
      [call('a', 'str'), call('b', 'obj'), call('c', 'empty')],
    );
    expect(results.map((message) => message.content)).toEqual([
      'plain string',
      'Tool obj failed (threw an object)',
      'Tool empty failed (threw Error with no message)',
    ]);
  });

  it('results are bounded by maxToolResultChars, error results too', async () => {
    const { results } = await oneBatch(
      [
        tool('long', () => 'x'.repeat(5000)),
        tool('loud', () => {
          throw new Error('e'.repeat(5000));
        }),
        tool('short', () => 'fits'),
      ],
      [call('a', 'long'), call('b', 'loud'), call('c', 'short')],
      { context: { maxToolResultChars: 200 } },
    );
    expect(results[0]?.content.length).toBeLessThanOrEqual(200);
    expect(results[0]?.content.startsWith('xxx')).toBe(true);
    expect(results[0]?.content.endsWith('xxx')).toBe(true);
    expect(results[1]?.content.length).toBeLessThanOrEqual(200);
    expect(results[2]?.content).toBe('fits');
  });

  it('the default bound is 100,000 characters', async () => {
    const { results } = await oneBatch([tool('huge', () => 'h'.repeat(150_000))], [call('a', 'huge')]);
    expect(results[0]?.content.length).toBeLessThanOrEqual(100_000);
    expect(results[0]?.content.length).toBeGreaterThan(90_000);
  });

  it('tools receive a signal, the call id and the run id', async () => {
    const contexts: { signal: AbortSignal; callId: string; runId: string; idempotencyKey: string }[] = [];
    const spy = tool('spy', (_args, context) => {
      contexts.push(context);
      return 'ok';
    });
    const { result } = await oneBatch([spy], [call('c7', 'spy')]);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({ callId: 'c7', runId: result.runId, idempotencyKey: `${result.runId}:c7` });
    expect(contexts[0]?.signal.aborted).toBe(false);
  });

  it('results are appended in call order whatever order they finish in', async () => {
    const gates = [deferred<string>(), deferred<string>(), deferred<string>()];
    const slow = (index: number) => tool(`r${index}`, () => gates[index]!.promise, { readOnly: true });
    const model = scriptedModel([
      { content: '', toolCalls: [call('a', 'r0'), call('b', 'r1'), call('c', 'r2')] },
      { content: 'done' },
    ]);
    const running = runAgent({ model, tools: [slow(0), slow(1), slow(2)], prompt: 'go' });
    await new Promise((resolve) => setImmediate(resolve));
    gates[2]!.resolve('third');
    gates[0]!.resolve('first');
    gates[1]!.resolve('second');
    const result = await running;
    expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.content)).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('readOnly tools run concurrently up to toolConcurrency; others one at a time in call order', async () => {
    const log: string[] = [];
    let active = 0;
    let peak = 0;
    const work = (name: string, readOnly: boolean) =>
      tool(
        name,
        async (_args, context) => {
          active++;
          peak = Math.max(peak, active);
          log.push(`start ${context.callId}`);
          await new Promise((resolve) => setTimeout(resolve, 2));
          log.push(`end ${context.callId}`);
          active--;
          return 'ok';
        },
        { readOnly },
      );
    const calls = [
      call('r1', 'read'),
      call('r2', 'read'),
      call('r3', 'read'),
      call('w1', 'write'),
      call('r4', 'read'),
      call('r5', 'read'),
    ];
    const { result } = await oneBatch([work('read', true), work('write', false)], calls, { toolConcurrency: 2 });
    expect(result.status).toBe('completed');
    expect(peak).toBe(2);
    // The write starts only after every earlier call ended, and nothing starts before it ends.
    const writeStart = log.indexOf('start w1');
    expect(log.slice(0, writeStart).filter((entry) => entry.startsWith('end'))).toHaveLength(3);
    expect(log[writeStart + 1]).toBe('end w1');
    expect(log.slice(0, 2)).toEqual(['start r1', 'start r2']);
  });

  it('toolConcurrency 1 runs even readOnly tools one at a time', async () => {
    let active = 0;
    let peak = 0;
    const read = tool(
      'read',
      async () => {
        peak = Math.max(peak, ++active);
        await new Promise((resolve) => setTimeout(resolve, 1));
        active--;
        return 'ok';
      },
      { readOnly: true },
    );
    await oneBatch([read], [call('a', 'read'), call('b', 'read'), call('c', 'read')], { toolConcurrency: 1 });
    expect(peak).toBe(1);
  });

  it('emits tool_start and tool_end for every admitted call, errors included', async () => {
    const events = recorder();
    await oneBatch([addTool()], [call('a', 'add', { a: 1, b: 1 }), call('b', 'missing')], { onEvent: events.onEvent });
    expect(events.ofType('tool_start').map((event) => [event.callId, event.name, event.arguments])).toEqual([
      ['a', 'add', { a: 1, b: 1 }],
      ['b', 'missing', {}],
    ]);
    expect(events.ofType('tool_end').map((event) => [event.callId, event.isError, event.result, event.step])).toEqual([
      ['a', false, '2', 1],
      ['b', true, 'Unknown tool: missing', 1],
    ]);
    for (const event of events.ofType('tool_end')) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('approval', () => {
  const guarded = () => {
    const calls: unknown[] = [];
    const t = tool(
      'rm',
      (args) => {
        calls.push(args);
        return 'removed';
      },
      { requiresApproval: true },
    );
    return Object.assign(t, { calls });
  };

  it('no approve hook: denied (fail closed)', async () => {
    const rm = guarded();
    const { results } = await oneBatch([rm], [call('a', 'rm', { path: 'x' })]);
    expect(results[0]).toMatchObject({
      isError: true,
      content: 'Denied: rm requires approval and no approve hook is configured.',
    });
    expect(rm.calls).toEqual([]);
  });

  it('the hook sees the call and the tool; true allows, false denies', async () => {
    const rm = guarded();
    const asked: [string, string][] = [];
    const { results } = await oneBatch([rm], [call('a', 'rm', { path: 'keep' }), call('b', 'rm', { path: 'tmp' })], {
      approve: async (toolCall: { id: string; arguments: unknown }, t: { name: string }) => {
        asked.push([toolCall.id, t.name]);
        return (toolCall.arguments as { path: string }).path === 'tmp';
      },
    });
    expect(asked).toEqual([
      ['a', 'rm'],
      ['b', 'rm'],
    ]);
    expect(results.map((message) => [message.content, message.isError])).toEqual([
      ['Denied: the approve hook refused this call to rm.', true],
      ['removed', false],
    ]);
    expect(rm.calls).toEqual([{ path: 'tmp' }]);
  });

  it('a throwing hook denies; a truthy non-true value denies', async () => {
    const rm = guarded();
    const { results } = await oneBatch([rm], [call('a', 'rm')], {
      approve: () => {
        throw new Error('prompt closed');
      },
    });
    expect(results[0]?.content).toBe('Denied: the approve hook failed (prompt closed), so rm did not run.');
    const again = await oneBatch([rm], [call('a', 'rm')], { approve: () => 'yes' as unknown as boolean });
    expect(again.results[0]?.content).toBe('Denied: the approve hook refused this call to rm.');
    expect(rm.calls).toEqual([]);
  });

  it('readOnly tools that require approval are asked one at a time, never concurrently', async () => {
    let asking = 0;
    let peak = 0;
    const peek = tool('peek', () => 'seen', { readOnly: true, requiresApproval: true });
    const { results } = await oneBatch([peek], [call('a', 'peek'), call('b', 'peek'), call('c', 'peek')], {
      approve: async () => {
        peak = Math.max(peak, ++asking);
        await new Promise((resolve) => setTimeout(resolve, 1));
        asking--;
        return true;
      },
    });
    expect(peak).toBe(1);
    expect(results.map((message) => message.content)).toEqual(['seen', 'seen', 'seen']);
  });

  it('tools without requiresApproval never ask the hook; invalid calls are not put to it', async () => {
    const asked: string[] = [];
    const strict = { ...addTool(), requiresApproval: true };
    await oneBatch([strict, tool('free', () => 'ok')], [call('a', 'free'), call('b', 'add', { a: 'x' })], {
      approve: (toolCall: { id: string }) => {
        asked.push(toolCall.id);
        return true;
      },
    });
    expect(asked).toEqual([]);
  });
});
