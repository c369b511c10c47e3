// `budget.gate`: a budget kept outside the run (a tenant's quotas), asked before each model call.
import type { Usage } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { agentTool, type BudgetGate, type BudgetRequest, runAgent } from '../src/index';
import { addTool, call } from './helpers';

/** A gate that lets `allowed` calls through, recording each request and each settled usage. */
function countingGate(allowed: number) {
  const requests: BudgetRequest[] = [];
  const settled: Usage[] = [];
  const gate: BudgetGate = {
    async reserve(request) {
      requests.push(request);
      if (requests.length > allowed) return { stop: `the tenant's quota tokensPerDay (100) is used up` };
      return { settle: (actual) => void settled.push(actual) };
    },
  };
  return { gate, requests, settled };
}

const step = (index: number) => ({
  content: '',
  toolCalls: [call(`c${index}`, 'add', { a: 1, b: 2 })],
  usage: { inputTokens: 10, outputTokens: 4, costUsd: 0.014 },
});

describe('budget.gate', () => {
  it('is asked before each model call with an estimate, settled with the real usage, and ends the run budget_limit with its reason', async () => {
    const { gate, requests, settled } = countingGate(2);
    const model = scriptedModel([step(0), step(1), step(2)]);
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', budget: { gate } });
    expect(result).toMatchObject({
      status: 'budget_limit',
      steps: 2,
      error: "the tenant's quota tokensPerDay (100) is used up",
    });
    expect(model.requests).toHaveLength(2);
    expect(requests.map((request) => request.step)).toEqual([1, 2, 3]);
    expect(requests[0]?.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(requests[0]?.estimate.costUsd).toBe(0);
    expect(requests[0]?.estimate.tokens).toBeGreaterThan(0);
    // After a priced call: the run's price per token times the estimated tokens, plus its output per call.
    const second = requests[1] as BudgetRequest;
    expect(second.usage).toEqual({ inputTokens: 10, outputTokens: 4, costUsd: 0.014 });
    expect(second.estimate.costUsd).toBeCloseTo(second.estimate.tokens * 0.001, 10);
    expect(settled).toEqual([step(0).usage, step(1).usage]);
  });

  it('a failed model call settles with zero usage; a gate that throws stops the run, saying so', async () => {
    const { gate, settled } = countingGate(5);
    const failing = scriptedModel(() => {
      throw new Error('boom');
    });
    const failed = await runAgent({ model: failing, prompt: 'go', budget: { gate }, retry: { maxRetries: 0 } });
    expect(failed.status).toBe('model_error');
    expect(settled).toEqual([{ inputTokens: 0, outputTokens: 0 }]);

    const broken: BudgetGate = {
      reserve: () => Promise.reject(new Error('Redis is down')),
    };
    const model = scriptedModel([step(0)]);
    const stopped = await runAgent({ model, prompt: 'go', budget: { gate: broken } });
    expect(stopped).toMatchObject({
      status: 'budget_limit',
      error: 'The budget gate failed before model call 1: Redis is down',
    });
    expect(model.requests).toHaveLength(0);
  });

  it("holds a sub-agent's model calls too", async () => {
    const { gate, requests } = countingGate(2);
    const child = scriptedModel([{ content: 'child done', usage: { inputTokens: 1, outputTokens: 1 } }]);
    const helper = agentTool({ model: child }, { name: 'helper', description: 'helps' });
    const parent = scriptedModel([
      { content: '', toolCalls: [call('h1', 'helper', { prompt: 'x' })] },
      { content: 'parent done' },
    ]);
    const result = await runAgent({ model: parent, tools: [helper], prompt: 'go', budget: { gate } });
    // Parent step 1, the sub-agent's call, then the parent's step 2 is refused.
    expect(requests).toHaveLength(3);
    expect(result.status).toBe('budget_limit');
  });

  it('refuses a gate without reserve()', async () => {
    await expect(
      runAgent({ model: scriptedModel([]), prompt: 'go', budget: { gate: {} as BudgetGate } }),
    ).rejects.toThrow('budget.gate');
  });
});
