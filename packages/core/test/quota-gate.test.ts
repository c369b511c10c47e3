// quotaGate: a tenant's daily and per-run quotas as a budget gate over a QuotaLedger.
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { MemoryQuotaLedger, quotaGate, runAgent } from '../src/index';
import { addTool, call } from './helpers';

const step = (index: number) => ({
  content: '',
  toolCalls: [call(`c${index}`, 'add', { a: 1, b: 2 })],
  usage: { inputTokens: 100, outputTokens: 0, costUsd: 0.1 },
});

describe('quotaGate', () => {
  it('reserves each call in the ledger, reconciles it with the real usage, and stops the run at tokensPerDay', async () => {
    const ledger = new MemoryQuotaLedger();
    const model = scriptedModel([step(0), step(1), step(2), step(3)]);
    const gate = quotaGate(ledger, 'acme', { tokensPerDay: 150 });
    const result = await runAgent({ model, tools: [addTool()], prompt: 'go', budget: { gate } });
    expect(result.status).toBe('budget_limit');
    expect(result.steps).toBe(2);
    expect(result.error).toMatch(
      /^Tenant acme reached its quota tokensPerDay \(150 tokens; 200 used today, the next call an estimated \d+\); stopped before model call 3\.$/,
    );
    // The estimates were given back and the real usage counted: two calls of 100 tokens and $0.1.
    expect(await ledger.day('acme')).toMatchObject({ tokens: 200, costUsd: 0.2 });
    expect(await ledger.day('globex')).toMatchObject({ tokens: 0, costUsd: 0 });
  });

  it('stops before the call that would pass costUsdPerRun, and counts without limits when none is set', async () => {
    const ledger = new MemoryQuotaLedger();
    const limited = await runAgent({
      model: scriptedModel([step(0), step(1), step(2), step(3)]),
      tools: [addTool()],
      prompt: 'go',
      budget: { gate: quotaGate(ledger, 'acme', { costUsdPerRun: 0.25 }) },
    });
    expect(limited).toMatchObject({ status: 'budget_limit', steps: 2 });
    expect(limited.error).toMatch(
      /^The run cost \$0\.2 \(and its next call an estimated \$0\.\d+\), reaching tenant acme's quota costUsdPerRun \(\$0\.25\); stopped before model call 3\.$/,
    );
    const counted = await runAgent({
      model: scriptedModel([step(0), { content: 'done', usage: { inputTokens: 5, outputTokens: 5 } }]),
      tools: [addTool()],
      prompt: 'go',
      budget: { gate: quotaGate(ledger, 'globex', {}) },
    });
    expect(counted.status).toBe('completed');
    expect(await ledger.day('globex')).toMatchObject({ tokens: 110, costUsd: 0.1 });
  });
});
