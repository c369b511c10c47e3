// agentTool: a sub-agent as a tool. Its events reach the parent's observers with parentRunId, its usage
// adds to the parent's, and it runs under the parent's signal, deadline and remaining budget.
import { ConfigError, type ModelRequest } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { Agent, agentTool, runAgent, streamAgent } from '../src/index';
import { call, deferred, recorder, untilAborted } from './helpers';

const usage = { inputTokens: 10, outputTokens: 5 };
const delegate = (prompt: string, id = 'd1') => ({ content: '', toolCalls: [call(id, 'research', { prompt })], usage });

describe('agentTool', () => {
  it('runs the sub-agent on { prompt }: its answer is the tool result; events nest; usage adds up', async () => {
    const child = scriptedModel([{ content: 'Paris', usage: { inputTokens: 3, outputTokens: 1, costUsd: 0.01 } }]);
    const research = agentTool(
      { model: child, system: 'You research.' },
      { name: 'research', description: 'Looks things up' },
    );
    const events = recorder();
    const result = await runAgent({
      model: scriptedModel([delegate('Capital of France?'), { content: 'It is Paris.', usage }]),
      tools: [research],
      prompt: 'Where?',
      onEvent: events.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(result.messages[2]).toMatchObject({ role: 'tool', name: 'research', content: 'Paris', isError: false });
    expect(child.requests[0]?.messages).toEqual([{ role: 'user', content: 'Capital of France?' }]);
    expect(child.requests[0]?.system).toBe('You research.');
    expect(result.usage).toEqual({ inputTokens: 23, outputTokens: 11, costUsd: 0.01 });
    const nested = events.events.filter((event) => event.parentRunId !== undefined);
    expect(nested.map((event) => event.type)).toEqual(['run_start', 'model_start', 'model_end', 'run_end']);
    expect(new Set(nested.map((event) => event.parentRunId))).toEqual(new Set([result.runId]));
    expect(nested[0]?.runId).not.toBe(result.runId);
    // The child's events arrive between the parent's tool_start and tool_end.
    const types = events.events.map((event) => `${event.parentRunId ? 'child:' : ''}${event.type}`);
    expect(types.indexOf('child:run_start')).toBe(types.indexOf('tool_start') + 1);
    expect(types.indexOf('tool_end')).toBe(types.indexOf('child:run_end') + 1);
  });

  it('a sub-agent that does not complete gives an error result naming its status and its last text', async () => {
    const child = scriptedModel([{ content: 'I looked at a, b', toolCalls: [call('x', 'nothing')] }]);
    const research = agentTool({ model: child, maxSteps: 1 }, { name: 'research', description: 'Looks things up' });
    const result = await runAgent({
      model: scriptedModel([delegate('go'), { content: 'ok' }]),
      tools: [research],
      prompt: 'x',
    });
    expect(result.messages[2]).toMatchObject({
      isError: true,
      content:
        'Sub-agent research ended with status step_limit: Stopped after maxSteps (1) model calls without a final answer. Its last text: I looked at a, b',
    });
  });

  it("gets the parent's signal: aborting the parent aborts the child's model call", async () => {
    const reached = deferred();
    let childSignal: AbortSignal | undefined;
    const child = scriptedModel([
      (request: ModelRequest) => {
        childSignal = request.signal;
        reached.resolve();
        return untilAborted(request.signal);
      },
    ]);
    const controller = new AbortController();
    const run = runAgent({
      model: scriptedModel([delegate('go')]),
      tools: [agentTool({ model: child }, { name: 'research', description: 'd' })],
      prompt: 'x',
      signal: controller.signal,
    });
    await reached.promise;
    controller.abort();
    const result = await run;
    expect(result.status).toBe('aborted');
    expect(childSignal?.aborted).toBe(true);
    expectValidTranscript(result.messages);
  });

  it("inherits the parent's remaining budget (the tighter of both): a child does not start past it", async () => {
    const seen: { timeoutMs?: number; budget?: unknown }[] = [];
    const child = scriptedModel([{ content: 'a', usage: { inputTokens: 50, outputTokens: 50 } }, { content: 'b' }]);
    const research = agentTool(
      {
        model: child,
        budget: { maxTokens: 1000 },
        onEvent: (event) => {
          if (event.type === 'run_end') seen.push({});
        },
      },
      { name: 'research', description: 'd' },
    );
    const result = await runAgent({
      model: scriptedModel([delegate('one', 'd1'), delegate('two', 'd2'), { content: 'done' }]),
      tools: [research],
      prompt: 'x',
      budget: { maxTokens: 130 },
      timeoutMs: 60_000,
    });
    // Step 1 used 15 tokens; the first child 100 (parent total 115, under 130). Step 2 ran (130 > 115)
    // and used 15 more: 130 reached, so the second child does not start, and the parent stops before step 3.
    expect(result.messages[2]).toMatchObject({ content: 'a', isError: false });
    expect(result.messages[4]).toMatchObject({
      isError: true,
      content:
        "Sub-agent research ended with status budget_limit: the parent run's budget is used up, so it did not start.",
    });
    expect(result).toMatchObject({ status: 'budget_limit', usage: { inputTokens: 70, outputTokens: 60 } });
    expect(child.requests).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it("the child's budget is what the parent has left: it stops with budget_limit inside", async () => {
    const child = scriptedModel([
      { content: '', toolCalls: [call('n', 'none')], usage: { inputTokens: 40, outputTokens: 0 } },
      { content: 'late' },
    ]);
    const result = await runAgent({
      model: scriptedModel([delegate('go'), { content: 'done' }]),
      tools: [agentTool({ model: child }, { name: 'research', description: 'd' })],
      prompt: 'x',
      budget: { maxTokens: 50 },
    });
    // Parent used 15 of 50: the child gets 35, uses 40 on its first call, and stops before its second.
    expect(result.messages[2]?.content).toMatch(
      /^Sub-agent research ended with status budget_limit: The run used 40 tokens, reaching budget.maxTokens \(35\)/,
    );
    expect(child.requests).toHaveLength(1);
  });

  it("an Agent keeps its conversation across calls; streamAgent text is the parent's own", async () => {
    const helper = new Agent({ model: scriptedModel([{ content: 'first' }, { content: 'second' }], { stream: true }) });
    const research = agentTool(helper, { name: 'research', description: 'd' });
    const stream = streamAgent({
      model: scriptedModel([delegate('a', 'd1'), delegate('b', 'd2'), { content: 'parent text' }], { stream: true }),
      tools: [research],
      prompt: 'x',
    });
    let text = '';
    for await (const delta of stream.text) text += delta;
    expect(text).toBe('parent text');
    expect(helper.messages.map((message) => message.content)).toEqual(['a', 'first', 'b', 'second']);
    expect((await stream.result).status).toBe('completed');
  });

  it('invalid sub-agent options or tool info throw ConfigError at once', () => {
    const model = scriptedModel([]);
    expect(() => agentTool({ model, maxSteps: 0 }, { name: 'r', description: 'd' })).toThrow('Invalid option maxSteps');
    expect(() => agentTool({ model, prompt: 'x' } as never, { name: 'r', description: 'd' })).toThrow(
      "agentTool: remove prompt from the sub-agent's options",
    );
    expect(() => agentTool({ model }, { name: '1 bad', description: 'd' })).toThrow(ConfigError);
    expect(() => agentTool({ model }, { name: 'r', description: '' })).toThrow('Invalid option description');
  });
});
