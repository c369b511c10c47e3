import { ConfigError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAgent } from '../src/index';

const personSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
  required: ['name', 'age'],
  additionalProperties: false,
};

describe('structured output', () => {
  it('JSON Schema: a valid final answer completes with result.output', async () => {
    const model = scriptedModel([{ content: '{"name":"Ada","age":36}' }]);
    const result = await runAgent({ model, prompt: 'who?', output: personSchema });
    expect(result).toMatchObject({
      status: 'completed',
      answer: '{"name":"Ada","age":36}',
      output: { name: 'Ada', age: 36 },
    });
  });

  it('tells the model the schema in the system prompt, after the caller system prompt', async () => {
    const model = scriptedModel([{ content: '{"name":"Ada","age":36}' }]);
    await runAgent({ model, prompt: 'who?', system: 'Be exact.', output: personSchema });
    const system = model.requests[0]?.system ?? '';
    expect(system.startsWith('Be exact.\n\n<output_format>\n')).toBe(true);
    expect(system).toContain(JSON.stringify(personSchema));
    expect(system.endsWith('</output_format>')).toBe(true);
  });

  it('an answer that is not JSON or fails the schema: the model is told why and tries again', async () => {
    const model = scriptedModel([
      { content: 'Ada, 36' },
      { content: '{"name":"Ada","age":-1}' },
      { content: '```json\n{"name":"Ada","age":36}\n```' },
    ]);
    const result = await runAgent({ model, prompt: 'who?', output: personSchema });
    expect(result).toMatchObject({ status: 'completed', steps: 3, output: { name: 'Ada', age: 36 } });
    const feedback = result.messages.filter((message) => message.role === 'user').slice(1);
    expect(feedback).toHaveLength(2);
    expect(feedback[0]?.content).toMatch(/^Your final answer was rejected: it is not valid JSON \(/);
    expect(feedback[1]?.content).toMatch(/^Your final answer was rejected: \$\.age: /);
    expect(feedback[1]?.content).toMatch(
      /Reply again with only the corrected JSON value matching the required schema\.$/,
    );
    expect(model.requests[1]?.messages.at(-1)).toEqual(feedback[0]);
  });

  it('zod: result.output holds the parsed value (transforms applied)', async () => {
    const schema = z.object({ city: z.string().transform((city) => city.toUpperCase()), zip: z.string().length(5) });
    const model = scriptedModel([
      { content: '{"city":"Oslo","zip":"123"}' },
      { content: '{"city":"Oslo","zip":"01234"}' },
    ]);
    const result = await runAgent({ model, prompt: 'where?', output: schema });
    expect(result).toMatchObject({ status: 'completed', output: { city: 'OSLO', zip: '01234' } });
    expect(result.messages[2]?.content).toMatch(/^Your final answer was rejected: \$\.zip: /);
  });

  it('step_limit when the model never produces a valid answer, naming the last problem', async () => {
    const model = scriptedModel(() => ({ content: 'nope' }));
    const result = await runAgent({ model, prompt: 'x', output: personSchema, maxSteps: 2 });
    expect(result.status).toBe('step_limit');
    expect(result.output).toBeUndefined();
    expect(result.error).toMatch(
      /^Stopped after maxSteps \(2\) model calls without a final answer matching the output schema \(last problem: it is not valid JSON/,
    );
  });

  it('a schema that does not compile is a ConfigError before any model call', async () => {
    const model = scriptedModel([{ content: '{}' }]);
    await expect(runAgent({ model, prompt: 'x', output: { type: 'nonsense' } })).rejects.toSatisfy(
      (error) => ConfigError.isInstance(error) && /^Invalid option output: /.test((error as Error).message),
    );
    await expect(runAgent({ model, prompt: 'x', output: 'string' as never })).rejects.toThrow(
      /^Invalid option output: /,
    );
    expect(model.requests).toHaveLength(0);
  });
});
