import type { RunEvent, Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';

/** A tool that spends tokens elsewhere (a remote agent's) and reports them through `context.addUsage`. */
const remoteTool: Tool<Record<string, never>, string> = {
  name: 'remote',
  description: 'Asks a remote agent',
  parameters: { type: 'object', properties: {} },
  execute: (_args, context) => {
    context.addUsage?.({ inputTokens: 100, outputTokens: 40 });
    return 'remote answer';
  },
};

describe('ToolContext.addUsage', () => {
  it("counts a call's outside usage in the run's usage and on its tool_end", async () => {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [{ id: 'c1', name: 'remote', arguments: {} }],
        usage: { inputTokens: 1, outputTokens: 2 },
      },
      { content: 'done', usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
    const events: RunEvent[] = [];
    const result = await runAgent({ model, tools: [remoteTool], prompt: 'go', onEvent: (event) => events.push(event) });
    expect(result.status).toBe('completed');
    expect(result.usage).toEqual({ inputTokens: 104, outputTokens: 46 });
    const end = events.find((event) => event.type === 'tool_end');
    expect(end?.type === 'tool_end' && end.usage).toEqual({ inputTokens: 100, outputTokens: 40 });
  });

  it('a budget sees it before the next model call', async () => {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [{ id: 'c1', name: 'remote', arguments: {} }],
        usage: { inputTokens: 1, outputTokens: 2 },
      },
      { content: 'done', usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
    const result = await runAgent({ model, tools: [remoteTool], prompt: 'go', budget: { maxTokens: 100 } });
    expect(result.status).toBe('budget_limit');
    expect(result.steps).toBe(1);
  });
});
