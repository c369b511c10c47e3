// `budget`: the run's summed usage is checked before each model call; status budget_limit once reached.
import { ConfigError, type ModelResponse } from '@bridle/protocol';
import { expectValidTranscript, scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/index';
import { addTool, call, recorder } from './helpers';

function toolSteps(count: number, usage: ModelResponse['usage']): ModelResponse[] {
  return Array.from({ length: count }, (_, index) => ({
    content: '',
    toolCalls: [call(`c${index}`, 'add', { a: 1, b: 2 })],
    ...(usage ? { usage } : {}),
  }));
}

describe('budget', () => {
  it('maxTokens: stops before the model call that would start past the budget', async () => {
    const events = recorder();
    const model = scriptedModel(toolSteps(10, { inputTokens: 10, outputTokens: 2 }));
    const result = await runAgent({
      model,
      tools: [addTool()],
      prompt: 'go',
      budget: { maxTokens: 30 },
      onEvent: events.onEvent,
    });
    expect(result).toMatchObject({
      status: 'budget_limit',
      steps: 3,
      toolCalls: 3,
      usage: { inputTokens: 30, outputTokens: 6 },
      error: 'The run used 36 tokens, reaching budget.maxTokens (30); stopped before model call 4.',
    });
    expect(model.requests).toHaveLength(3);
    expectValidTranscript(result.messages);
    expect(events.ofType('run_end')[0]?.status).toBe('budget_limit');
  });

  it('maxCostUsd: sums usage.costUsd of the model calls', async () => {
    const model = scriptedModel(toolSteps(10, { inputTokens: 1, outputTokens: 1, costUsd: 0.01 }));
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', budget: { maxCostUsd: 0.025 } });
    expect(result.status).toBe('budget_limit');
    expect(result.steps).toBe(3);
    expect(result.usage.costUsd).toBeCloseTo(0.03, 10);
    expect(result.error).toBe('The run cost $0.03, reaching budget.maxCostUsd ($0.025); stopped before model call 4.');
  });

  it('a budget exactly reached stops; below it the run goes on; costs not reported count as nothing', async () => {
    const exact = await runAgent({
      model: scriptedModel(toolSteps(3, { inputTokens: 5, outputTokens: 5 })),
      tools: [addTool()],
      prompt: 'go',
      budget: { maxTokens: 10 },
    });
    expect(exact).toMatchObject({ status: 'budget_limit', steps: 1 });
    const unpriced = await runAgent({
      model: scriptedModel([...toolSteps(3, { inputTokens: 5, outputTokens: 5 }), { content: 'done' }]),
      tools: [addTool()],
      prompt: 'go',
      budget: { maxCostUsd: 0.0001 },
    });
    expect(unpriced).toMatchObject({ status: 'completed', steps: 4 });
  });

  it('invalid budgets are ConfigErrors before any model call', async () => {
    const model = scriptedModel([{ content: 'x' }]);
    for (const [budget, message] of [
      [{ maxTokens: 0 }, 'Invalid option budget.maxTokens: expected a finite number above 0, got number 0.'],
      [{ maxCostUsd: -1 }, 'Invalid option budget.maxCostUsd: expected a finite number above 0, got number -1.'],
      [
        { maxCostUsd: Number.NaN },
        'Invalid option budget.maxCostUsd: expected a finite number above 0, got number NaN.',
      ],
      [{ maxToken: 5 }, 'Unknown option budget.maxToken. Accepted: maxTokens, maxCostUsd, gate.'],
      [5, 'Invalid option budget: expected an object, got number 5.'],
    ] as const) {
      const run = runAgent({ model, prompt: 'x', budget: budget as never });
      await expect(run).rejects.toThrow(ConfigError);
      await expect(run).rejects.toThrow(message);
    }
    expect(model.requests).toHaveLength(0);
  });
});
