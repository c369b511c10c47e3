import { describe, expect, it } from 'vitest';
import { calculatorTool } from '../src/calculator-tool';

const context = {
  signal: new AbortController().signal,
  callId: 'call-1',
  runId: 'run-1',
  idempotencyKey: 'run-1:call-1',
};

describe('calculatorTool', () => {
  it('evaluates the expression argument', async () => {
    const tool = calculatorTool();
    expect(await tool.execute({ expression: '2 * (3 + 4) ^ 2 / sqrt(16)' }, context)).toEqual({
      expression: '2 * (3 + 4) ^ 2 / sqrt(16)',
      result: 24.5,
    });
    expect(tool).toMatchObject({ name: 'calculator', readOnly: true });
    expect(tool.parameters).toMatchObject({ required: ['expression'], additionalProperties: false });
  });

  it('throws clear errors for bad expressions and bad arguments', async () => {
    const tool = calculatorTool();
    await expect(async () => tool.execute({ expression: '1 / (2 - 2)' }, context)).rejects.toThrow(
      'Division by zero (1 / 0) at position 3',
    );
    await expect(async () => tool.execute({ expression: 12 } as never, context)).rejects.toThrow(
      'calculator: "expression" must be a string, got number 12',
    );
    await expect(async () => tool.execute({} as never, context)).rejects.toThrow(
      'calculator: "expression" must be a string, got undefined',
    );
    await expect(async () => tool.execute(null as never, context)).rejects.toThrow(
      'calculator: arguments must be an object, got null',
    );
    await expect(async () => tool.execute({ expression: '1', code: 'x' } as never, context)).rejects.toThrow(
      'calculator: unknown argument "code"; allowed: expression',
    );
  });
});
