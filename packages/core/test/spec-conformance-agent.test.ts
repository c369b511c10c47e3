// Black-box conformance to SPEC "@bridle/core", continued: the Agent class, structured output and the
// `context` options of the loop. Only the public API is used.
import { boundToolResult, selectContext } from '@bridle/context';
import { ConfigError, type Message } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, runAgent } from '../src/index';
import { ask, deferred, doubleTool, probeTool, settle } from './conformance-helpers';

describe('SPEC: new Agent({ model, tools, system, ...limits }) is a conversation', () => {
  it('agent.run(input) continues the conversation over runs; agent.messages holds it', async () => {
    const model = scriptedModel([{ content: 'Hi Ada.' }, { content: 'You are Ada.' }]);
    const agent = new Agent({ model, system: 'Be brief.' });
    await agent.run('I am Ada.');
    const second = await agent.run('Who am I?');
    expect(second).toMatchObject({ status: 'completed', answer: 'You are Ada.' });
    const conversation: Message[] = [
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hi Ada.' },
      { role: 'user', content: 'Who am I?' },
      { role: 'assistant', content: 'You are Ada.' },
    ];
    expect(agent.messages).toEqual(conversation);
    expect(model.requests[1]?.messages).toEqual(conversation.slice(0, 3));
    expect(model.requests.map((request) => request.system)).toEqual(['Be brief.', 'Be brief.']);
  });

  it('agent.messages is a copy: changing it does not change the conversation', async () => {
    const agent = new Agent({ model: scriptedModel([{ content: 'a' }]) });
    await agent.run('q');
    agent.messages.push({ role: 'user', content: 'injected' });
    expect(agent.messages).toHaveLength(2);
  });

  it('the conversation is kept whatever the status (a step_limit run keeps its valid transcript)', async () => {
    const model = scriptedModel([ask(['c1', 'double', { a: 1 }]), { content: 'after' }]);
    const agent = new Agent({ model, tools: [doubleTool()], maxSteps: 1 });
    const first = await agent.run('go');
    expect(first.status).toBe('step_limit');
    expect(agent.messages).toEqual(first.messages);
    await agent.run('continue');
    expectValidTranscript(agent.messages);
    expect(agent.messages.at(-1)).toEqual({ role: 'assistant', content: 'after' });
  });

  it('agent.use(tool) offers the tool on the next run', async () => {
    const model = scriptedModel([ask(['c1', 'double', { a: 21 }]), { content: '42' }]);
    const agent = new Agent({ model });
    agent.use(doubleTool());
    const result = await agent.run('double 21');
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['double']);
    expect(result.messages[2]).toMatchObject({ role: 'tool', content: '42', isError: false });
  });

  it('agent.use(skill) appends the instructions to the system prompt and registers its tools', async () => {
    const model = scriptedModel([{ content: 'ok' }]);
    const agent = new Agent({ model, system: 'Base.' });
    agent.use({ name: 'math', instructions: 'Use double for doubling.', tools: [doubleTool()] });
    await agent.run('hi');
    const system = model.requests[0]?.system ?? '';
    expect(system.startsWith('Base.')).toBe(true);
    expect(system).toContain('Use double for doubling.');
    expect(system.indexOf('Use double')).toBeGreaterThan(system.indexOf('Base.'));
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['double']);
  });

  it('agent.use() with a clashing tool name throws ConfigError and changes nothing', () => {
    const agent = new Agent({ model: scriptedModel([]), tools: [doubleTool()] });
    expect(() => agent.use({ instructions: 'x', tools: [doubleTool()] })).toThrow(ConfigError);
    expect(agent.tools.map((tool) => tool.name)).toEqual(['double']);
    expect(agent.system).toBeUndefined();
  });

  it('agent.reset() forgets the conversation', async () => {
    const model = scriptedModel([{ content: 'one' }, { content: 'two' }]);
    const agent = new Agent({ model });
    await agent.run('first');
    agent.reset();
    expect(agent.messages).toEqual([]);
    await agent.run('second');
    expect(model.requests[1]?.messages).toEqual([{ role: 'user', content: 'second' }]);
  });

  it('agent.run(input, { signal }) cancels that run: aborted, conversation still valid', async () => {
    const gate = deferred<string>();
    const model = scriptedModel([ask(['c1', 'wait'])]);
    const agent = new Agent({ model, tools: [probeTool('wait', () => gate.promise)] });
    const controller = new AbortController();
    const run = agent.run('go', { signal: controller.signal });
    await settle();
    controller.abort();
    expect((await run).status).toBe('aborted');
    expectValidTranscript(agent.messages);
  });

  it('invalid limits throw ConfigError at construction', () => {
    expect(() => new Agent({ model: scriptedModel([]), maxSteps: 0 })).toThrow(ConfigError);
  });
});

describe('SPEC: output gives a structured final answer, validated', () => {
  it('with zod: result.output holds the parsed value', async () => {
    const model = scriptedModel([{ content: '{"sum": 5, "unit": "apples"}' }]);
    const output = z.object({ sum: z.number(), unit: z.string().transform((unit) => unit.toUpperCase()) });
    const result = await runAgent({ model, prompt: 'sum?', output });
    expect(result).toMatchObject({ status: 'completed', output: { sum: 5, unit: 'APPLES' } });
  });

  it('with JSON Schema: result.output holds the value', async () => {
    const model = scriptedModel([{ content: '{"ok": true}' }]);
    const output = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    expect(await runAgent({ model, prompt: 'ok?', output })).toMatchObject({
      status: 'completed',
      output: { ok: true },
    });
  });

  it('an answer that does not validate: the model is told why and gets another step', async () => {
    const model = scriptedModel([{ content: 'five' }, { content: '{"sum": "5"}' }, { content: '{"sum": 5}' }]);
    const result = await runAgent({ model, prompt: 'sum?', output: z.object({ sum: z.number() }) });
    expect(result).toMatchObject({ status: 'completed', steps: 3, output: { sum: 5 } });
    const told = model.requests[2]?.messages.at(-1) as Message;
    expect(told.role).toBe('user');
    expect(told.content).toMatch(/sum/);
    expectValidTranscript(result.messages);
  });

  it('never valid within maxSteps: step_limit, no output', async () => {
    const model = scriptedModel([{ content: 'nope' }, { content: 'still nope' }]);
    const result = await runAgent({ model, prompt: 'sum?', maxSteps: 2, output: z.object({ sum: z.number() }) });
    expect(result.status).toBe('step_limit');
    expect(result.output).toBeUndefined();
  });
});

describe('SPEC: the context options of the loop', () => {
  it('maxContextChars: every model call sees selectContext(transcript, maxContextChars)', async () => {
    const echo = probeTool('echo', () => 'r'.repeat(300));
    const model = scriptedModel([ask(['c1', 'echo']), ask(['c2', 'echo']), ask(['c3', 'echo']), { content: 'done' }]);
    const result = await runAgent({ model, tools: [echo], prompt: 'go', context: { maxContextChars: 900 } });
    expect(result.status).toBe('completed');
    // Before call n the whole transcript has 1 + 2n messages (user, then an assistant + tool per step).
    model.requests.forEach((request, call) => {
      const whole = result.messages.slice(0, 1 + 2 * call);
      expect(request.messages).toEqual(selectContext(whole, 900));
      expect(JSON.stringify(request.messages).length).toBeLessThanOrEqual(900);
    });
    // The returned transcript is the whole conversation, not the selection.
    expect(result.messages).toHaveLength(8);
    expect(model.requests[3]?.messages.length).toBeLessThan(7);
  });

  it('context_limit when the first message plus the newest group do not fit', async () => {
    const model = scriptedModel([{ content: 'never' }]);
    const result = await runAgent({ model, prompt: 'x'.repeat(200), context: { maxContextChars: 100 } });
    expect(result).toMatchObject({ status: 'context_limit', steps: 0 });
    expect(model.requests).toHaveLength(0);
  });

  it('maxToolResultChars defaults to 100,000', async () => {
    const big = 'b'.repeat(150_000);
    const model = scriptedModel([ask(['c1', 'big']), { content: 'done' }]);
    const result = await runAgent({ model, tools: [probeTool('big', () => big)], prompt: 'go' });
    expect(result.messages[2]?.content).toBe(boundToolResult(big, 100_000));
  });
});
