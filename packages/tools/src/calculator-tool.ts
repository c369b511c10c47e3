import type { Tool } from '@bridle/protocol';
import { evaluateExpression, MAX_EXPRESSION_LENGTH } from './evaluate-expression';
import { readArguments, readString } from './read-arguments';

/** Arguments of the calculator tool. */
export interface CalculatorArguments {
  expression: string;
}

/** What the calculator tool returns. */
export interface CalculatorResult {
  expression: string;
  result: number;
}

/**
 * A tool named `calculator` that evaluates arithmetic with {@link evaluateExpression} (our own parser:
 * never `eval` or `Function`). Read-only. A bad expression, division by zero or overflow throws an `Error`
 * whose message names the problem and its 1-based position.
 */
export function calculatorTool(): Tool<CalculatorArguments, CalculatorResult> {
  return {
    name: 'calculator',
    description:
      'Evaluate an arithmetic expression exactly, e.g. "2 * (3 + 4) ^ 2 / sqrt(16)". Operators: + - * / % ^ and ' +
      'parentheses. Functions: sqrt, cbrt, abs, round, floor, ceil, trunc, sign, log (base 10), log2, ln, exp, ' +
      'sin, cos, tan, asin, acos, atan (radians), min, max, hypot. Constants: pi, e, tau.',
    parameters: {
      type: 'object',
      properties: {
        expression: {
          type: 'string',
          minLength: 1,
          maxLength: MAX_EXPRESSION_LENGTH,
          description: 'The expression to evaluate',
        },
      },
      required: ['expression'],
      additionalProperties: false,
    },
    readOnly: true,
    execute(args) {
      const record = readArguments(args, 'calculator', ['expression']);
      const expression = readString(record, 'expression', 'calculator');
      return { expression, result: evaluateExpression(expression) };
    },
  };
}
