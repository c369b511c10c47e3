import { scriptedModel } from '@bridle/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, type AgentResult, runAgent } from '../src/index';

describe('types', () => {
  it('result.output is typed by a Standard Schema output', async () => {
    const result = await runAgent({
      model: scriptedModel([{ content: '{"n":1}' }]),
      prompt: 'x',
      output: z.object({ n: z.number() }),
    });
    expectTypeOf(result).toEqualTypeOf<AgentResult<{ n: number }>>();
    expect(result.output?.n).toBe(1);
    const agent = new Agent({ model: scriptedModel([{ content: '{"n":2}' }]), output: z.object({ n: z.number() }) });
    expect((await agent.run('x')).output?.n).toBe(2);
  });
});
