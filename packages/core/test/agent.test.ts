import { ConfigError, type Message } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { Agent } from '../src/index';
import { addTool, call, tool, untilAborted } from './helpers';

describe('Agent', () => {
  it('keeps the conversation over several runs', async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [call('c1', 'add', { a: 2, b: 3 })] },
      { content: '5' },
      { content: 'You asked about 2 + 3.' },
    ]);
    const agent = new Agent({ model, tools: [addTool()], system: 'You add.' });
    const first = await agent.run('2 + 3?');
    expect(first).toMatchObject({ status: 'completed', answer: '5', steps: 2, toolCalls: 1 });
    const second = await agent.run('What did I ask?');
    expect(second).toMatchObject({ status: 'completed', answer: 'You asked about 2 + 3.', steps: 1, toolCalls: 0 });
    expect(model.requests[2]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(model.requests[2]?.system).toBe('You add.');
    expect(agent.messages).toHaveLength(6);
    expectValidTranscript(agent.messages);
  });

  it('messages is a copy; reset() forgets the conversation', async () => {
    const agent = new Agent({ model: scriptedModel(() => ({ content: 'hi' })) });
    await agent.run('hello');
    const copy = agent.messages;
    copy.push({ role: 'user', content: 'tampered' });
    expect(agent.messages).toHaveLength(2);
    agent.reset();
    expect(agent.messages).toEqual([]);
    await agent.run('again');
    expect(agent.messages).toEqual([
      { role: 'user', content: 'again' },
      { role: 'assistant', content: 'hi' },
    ]);
  });

  it('keeps the transcript of a failed or aborted run, and the next run continues it validly', async () => {
    const model = scriptedModel([new Error('down'), (request) => untilAborted(request.signal), { content: 'back' }]);
    const agent = new Agent({ model });
    expect((await agent.run('one')).status).toBe('model_error');
    const controller = new AbortController();
    const aborted = agent.run('two', { signal: controller.signal });
    setTimeout(() => controller.abort(), 1);
    expect((await aborted).status).toBe('aborted');
    expect((await agent.run('three')).answer).toBe('back');
    expect(agent.messages.map((message) => message.content)).toEqual(['one', 'two', 'three', 'back']);
  });

  it('starts from a given transcript', async () => {
    const history: Message[] = [
      { role: 'user', content: 'my name is Ada' },
      { role: 'assistant', content: 'hello Ada' },
    ];
    const model = scriptedModel([{ content: 'Ada' }]);
    const agent = new Agent({ model, messages: history });
    await agent.run('my name?');
    expect(model.requests[0]?.messages).toHaveLength(3);
    expect(() => new Agent({ model, messages: [{ role: 'assistant', content: 'x' }] })).toThrow(
      /^Invalid option messages/,
    );
  });

  it('use(tool) and use(skill): tools registered, instructions appended in a delimited section', async () => {
    const model = scriptedModel([{ content: '', toolCalls: [call('c1', 'shout', {})] }, { content: 'done' }]);
    const agent = new Agent({ model, system: 'Base.' });
    agent.use(addTool()).use({ name: 'loud', instructions: 'Always shout.', tools: [tool('shout', () => 'HEY')] });
    expect(agent.tools.map((t) => t.name)).toEqual(['add', 'shout']);
    expect(agent.system).toBe('Base.\n\n<skill name="loud">\nAlways shout.\n</skill>');
    const result = await agent.run('go');
    expect(result.messages[2]).toMatchObject({ role: 'tool', content: 'HEY', isError: false });
    expect(model.requests[0]?.system).toBe(agent.system);
    expect(model.requests[0]?.tools.map((definition) => definition.name)).toEqual(['add', 'shout']);
  });

  it('use(): a name clash or an invalid tool is a ConfigError and changes nothing', () => {
    const agent = new Agent({ model: scriptedModel([]), tools: [addTool()] });
    expect(() => agent.use({ name: 'math', instructions: 'x', tools: [addTool()] })).toThrow(
      'Tool name clash: skill "math" brings a tool "add" but the agent already has a different one. Rename one of them.',
    );
    expect(() => agent.use({ instructions: 'y', tools: [tool('bad name!', () => 1)] })).toThrow(ConfigError);
    expect(() => agent.use(42 as never)).toThrow(/^agent\.use\(\) needs a tool or a skill/);
    expect(agent.tools.map((t) => t.name)).toEqual(['add']);
    expect(agent.system).toBeUndefined();
  });

  it('use(): skills sharing a tool object compose; the shared tool is registered once', () => {
    const shared = addTool();
    const agent = new Agent({ model: scriptedModel([]) });
    agent
      .use({ name: 'first', instructions: 'One.', tools: [shared, tool('shout', () => 'HEY')] })
      .use({ name: 'second', instructions: 'Two.', tools: [shared, shared] });
    expect(agent.tools.map((t) => t.name)).toEqual(['add', 'shout']);
    expect(agent.system).toBe('<skill name="first">\nOne.\n</skill>\n\n<skill name="second">\nTwo.\n</skill>');
  });

  it('invalid options throw at construction; a second concurrent run is refused', async () => {
    expect(() => new Agent({ model: scriptedModel([]), maxSteps: 0 })).toThrow(
      'Invalid option maxSteps: expected an integer >= 1 (a safe integer), got number 0.',
    );
    expect(() => new Agent({ model: scriptedModel([]), prompt: 'x' } as never)).toThrow(/^Unknown option prompt/);
    const agent = new Agent({ model: scriptedModel([(request) => untilAborted(request.signal)]), timeoutMs: 20 });
    const running = agent.run('a');
    await expect(agent.run('b')).rejects.toThrow(
      'This agent is already running: await the previous run() before starting another.',
    );
    expect((await running).status).toBe('timeout');
    await expect(agent.run('')).rejects.toThrow(ConfigError);
  });

  it('reset() during a run: the run result is not kept', async () => {
    let release: (() => void) | undefined;
    const model = scriptedModel([() => new Promise((resolve) => (release = () => resolve({ content: 'late' })))]);
    const agent = new Agent({ model });
    const running = agent.run('q');
    await new Promise((resolve) => setImmediate(resolve));
    agent.reset();
    release?.();
    expect((await running).answer).toBe('late');
    expect(agent.messages).toEqual([]);
  });
});

describe('Agent memory', () => {
  const chat = () => scriptedModel((request) => ({ content: `reply ${request.messages.length}` }));

  it('maxContextChars keeps the first message and the newest groups between runs', async () => {
    const model = chat();
    const agent = new Agent({ model, memory: { maxContextChars: 300 } });
    for (let index = 0; index < 8; index++) await agent.run(`question number ${index} ${'.'.repeat(40)}`);
    const sent = model.requests.at(-1)?.messages ?? [];
    expect(sent[0]?.content).toMatch(/^question number 0/);
    expect(sent.at(-1)?.content).toMatch(/^question number 7/);
    expect(JSON.stringify(sent).length).toBeLessThanOrEqual(300);
    expect(agent.messages.length).toBeLessThan(16);
    expectValidTranscript(agent.messages);
  });

  it('maxTokens with a custom counter', async () => {
    const agent = new Agent({ model: chat(), memory: { maxTokens: 6, counter: (text) => (text === '' ? 0 : 1) } });
    for (let index = 0; index < 6; index++) await agent.run(`q${index}`);
    expect(agent.messages.length).toBeLessThanOrEqual(8);
    expect(agent.messages[0]?.content).toBe('q0');
  });

  it('compact: the dropped part is summarized by one model call', async () => {
    const model = scriptedModel((request) =>
      request.tools.length === 0 && request.messages[0]?.content.startsWith('Summarize')
        ? { content: 'earlier: greetings' }
        : { content: `reply ${request.messages.length}` },
    );
    const agent = new Agent({ model, memory: { maxContextChars: 250, compact: true } });
    for (let index = 0; index < 6; index++) await agent.run(`message ${index} ${'.'.repeat(40)}`);
    const summaries = agent.messages.filter((message) =>
      message.content.startsWith('[Summary of earlier conversation]'),
    );
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.content).toContain('earlier: greetings');
    expectValidTranscript(agent.messages);
  });

  it('a memory function decides what is kept', async () => {
    const agent = new Agent({ model: chat(), memory: (messages) => messages.slice(-1) });
    await agent.run('one');
    await agent.run('two');
    expect(agent.messages.map((message) => message.content)).toEqual(['two', 'reply 1']);
  });

  it('invalid memory options are ConfigErrors', () => {
    const model = scriptedModel([]);
    expect(() => new Agent({ model, memory: {} })).toThrow(
      'Invalid option memory: give exactly one budget, memory.maxContextChars or memory.maxTokens.',
    );
    expect(() => new Agent({ model, memory: { maxTokens: 0 } })).toThrow(/^Invalid option memory\.maxTokens/);
    expect(() => new Agent({ model, memory: { maxTokens: 5, size: 1 } as never })).toThrow(
      /^Unknown option memory\.size/,
    );
  });
});
