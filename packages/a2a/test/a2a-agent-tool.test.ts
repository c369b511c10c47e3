import { TaskState } from '@a2a-js/sdk';
import { runAgent } from '@bridle/core';
import { ConfigError, type RunEvent } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { A2AAgentError, type A2AAgentUpdate, a2aAgentTool } from '../src/index';
import { startSdkAgent } from './sdk-server';

const context = (runId = 'run-1') => ({
  signal: new AbortController().signal,
  callId: 'c1',
  runId,
  idempotencyKey: `${runId}:c1`,
});

/** A parent model that asks the remote agent `question`, then answers with what it said. */
function parentModel(question: string) {
  return scriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool')
      return { content: `parent heard: ${last.content}`, usage: { inputTokens: 1, outputTokens: 1 } };
    return {
      content: '',
      toolCalls: [{ id: 'ask-1', name: 'remote_agent', arguments: { message: question } }],
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  });
}

describe('a2aAgentTool against an @a2a-js/sdk server', () => {
  it('is a sub-agent: the answer is the result, its reported usage reaches the parent run, updates reach onUpdate', async () => {
    const remote = await startSdkAgent(() => ({
      answer: 'the capital is Paris',
      updates: ['thinking', 'looking it up'],
      usage: { inputTokens: 30, outputTokens: 12 },
    }));
    const updates: A2AAgentUpdate[] = [];
    const tool = a2aAgentTool(remote.url, {
      headers: { authorization: 'Bearer peer-key' },
      onUpdate: (update) => updates.push(update),
    });
    const events: RunEvent[] = [];
    const result = await runAgent({
      model: parentModel('capital of France?'),
      tools: [tool],
      prompt: 'ask',
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('parent heard: the capital is Paris');
    expect(result.usage).toEqual({ inputTokens: 32, outputTokens: 14 });
    const end = events.find((event) => event.type === 'tool_end');
    expect(end?.type === 'tool_end' && end.usage).toEqual({ inputTokens: 30, outputTokens: 12 });
    expect(remote.requests).toEqual([
      { text: 'capital of France?', contextId: expect.any(String), authorization: 'Bearer peer-key' },
    ]);
    expect(updates.filter((update) => update.kind === 'statusUpdate').map((update) => update.text)).toEqual([
      'thinking',
      'looking it up',
      '',
    ]);
  });

  it('without streaming, sends message/send; a second call in one run continues the remote conversation', async () => {
    const remote = await startSdkAgent((text) => ({ answer: `re: ${text}` }), { streaming: false });
    const tool = a2aAgentTool(remote.url);
    expect(await tool.execute({ message: 'one' }, context())).toBe('re: one');
    expect(await tool.execute({ message: 'two' }, context())).toBe('re: two');
    expect(await tool.execute({ message: 'three' }, context('run-2'))).toBe('re: three');
    const [first, second, third] = remote.requests;
    expect(second?.contextId).toBe(first?.contextId);
    expect(third?.contextId).not.toBe(first?.contextId);
  });

  it("a failed, rejected or input-required task is an A2AAgentError with the peer's words; the run goes on", async () => {
    const remote = await startSdkAgent((text) =>
      text === 'fail'
        ? { state: TaskState.TASK_STATE_FAILED, answer: 'no database' }
        : { state: TaskState.TASK_STATE_INPUT_REQUIRED, answer: 'approve the transfer?' },
    );
    const tool = a2aAgentTool(remote.url);
    const failed = await Promise.resolve(tool.execute({ message: 'fail' }, context())).catch((error: unknown) => error);
    expect(A2AAgentError.isInstance(failed)).toBe(true);
    expect((failed as Error).message).toMatch(
      /^The A2A agent at http:\/\/127\.0\.0\.1:\d+ ended task \S+ failed: no database$/,
    );
    await expect(tool.execute({ message: 'pay' }, context())).rejects.toThrow(
      /ended task \S+ input-required: approve the transfer\? It waits for input .* which this tool does not forward/,
    );
    const result = await runAgent({ model: parentModel('fail'), tools: [tool], prompt: 'ask' });
    expect(result.status).toBe('completed');
    expect(result.answer).toMatch(/^parent heard: .*ended task \S+ failed: no database/);
  });

  it('bounds the peer: time, answer size, result length, and a card pointing elsewhere', async () => {
    const slow = await startSdkAgent(() => ({ hang: true, answer: 'late' }));
    await expect(a2aAgentTool(slow.url, { timeoutMs: 300 }).execute({ message: 'hi' }, context())).rejects.toThrow(
      `The A2A agent at ${slow.url} did not answer within timeoutMs=300.`,
    );
    const big = await startSdkAgent(() => ({ answer: 'x'.repeat(50_000) }), { streaming: false });
    await expect(
      a2aAgentTool(big.url, { maxResponseBytes: 10_000 }).execute({ message: 'hi' }, context()),
    ).rejects.toThrow('sent more than maxResponseBytes=10000 bytes in one answer');
    const long = await a2aAgentTool(big.url, { maxResultChars: 100 }).execute({ message: 'hi' }, context());
    expect(long).toBe(`${'x'.repeat(100)}\n[… the remote agent's answer was cut at 100 of 50000 characters]`);
    const elsewhere = await startSdkAgent(() => ({ answer: 'x' }), { cardUrl: () => 'http://169.254.169.254/a2a' });
    await expect(a2aAgentTool(elsewhere.url).execute({ message: 'hi' }, context())).rejects.toThrow(
      'points to http://169.254.169.254, another origin than its own',
    );
  });

  it("the parent's cancellation stops a call at once, with the parent's reason (not a timeout)", async () => {
    const slow = await startSdkAgent(() => ({ hang: true, answer: 'late' }));
    const controller = new AbortController();
    const call = Promise.resolve(
      a2aAgentTool(slow.url, { timeoutMs: 30_000 }).execute(
        { message: 'hi' },
        { ...context(), signal: controller.signal },
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort(new Error('the run was cancelled'));
    const failure = await call.catch((error: unknown) => error);
    expect(A2AAgentError.isInstance(failure)).toBe(false);
    expect(String((failure as Error).message ?? failure)).toContain('cancelled');
  });

  it('a malformed JSON-RPC answer is a clear error; an unreachable agent too', async () => {
    const garbage = await startSdkAgent(() => ({ answer: 'x' }), {
      streaming: false,
      rawJsonRpc: (_request, response) => {
        response.json({ jsonrpc: '2.0', id: 1, result: { nonsense: true } });
      },
    });
    await expect(a2aAgentTool(garbage.url).execute({ message: 'hi' }, context())).rejects.toThrow(
      `The A2A agent at ${garbage.url}`,
    );
    const nowhere = a2aAgentTool('http://127.0.0.1:9/');
    await expect(nowhere.execute({ message: 'hi' }, context())).rejects.toThrow(
      'The A2A agent at http://127.0.0.1:9/ failed',
    );
  });

  it('refuses bad options with a ConfigError naming them', () => {
    expect(() => a2aAgentTool('not a url')).toThrow(ConfigError);
    expect(() => a2aAgentTool('ftp://x.example')).toThrow('expected http: or https:, got ftp:');
    expect(() => a2aAgentTool('http://x.example', { name: 'has space' })).toThrow(
      'Invalid a2aAgentTool name "has space"',
    );
    expect(() => a2aAgentTool('http://x.example', { timeoutMs: 0 })).toThrow('Invalid a2aAgentTool timeoutMs 0');
  });
});
