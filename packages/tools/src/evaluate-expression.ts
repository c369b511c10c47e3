import { CalculatorError } from './calculator-error';
import { formatNumber, MATH_CONSTANTS, MATH_FUNCTIONS, tidyNumber } from './math-functions';
import { type ExpressionToken, tokenizeExpression } from './tokenize-expression';

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_LENGTH = 1_000;
/** Deepest nesting accepted (parentheses, unary signs, function calls, chained `^`). */
export const MAX_EXPRESSION_DEPTH = 64;

type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '^';

/** Left and right binding powers; `^` binds tighter than unary minus and is right-associative. */
const BINDING_POWER: Record<BinaryOperator, [number, number]> = {
  '+': [10, 11],
  '-': [10, 11],
  '*': [20, 21],
  '/': [20, 21],
  '%': [20, 21],
  '^': [40, 39],
};
const UNARY_BINDING_POWER = 30;

/**
 * Evaluates an arithmetic expression with a small Pratt parser of our own: never `eval` or `Function`.
 *
 * Grammar: decimal numbers (`2`, `.5`, `1.5e-3`), `+ - * / %` (`%` is the remainder, with the sign of
 * the dividend), `^` or `**` (power, right-associative, binds tighter than unary minus: `-2^2 = -4`),
 * parentheses, unary `+`/`-`, the functions of {@link MATH_FUNCTIONS} and the constants `pi`, `e`, `tau`
 * (names are case-insensitive). Trigonometry works in radians.
 *
 * The result is tidied: non-integers are rounded to 15 significant digits (`0.1 + 0.2` gives `0.3`).
 *
 * @throws CalculatorError for expressions longer than {@link MAX_EXPRESSION_LENGTH} characters or nested
 *   deeper than {@link MAX_EXPRESSION_DEPTH}, syntax errors, unknown names, wrong argument counts,
 *   division or remainder by zero, domain errors (`sqrt(-1)`) and results that overflow to infinity.
 */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new CalculatorError(
      `Expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH})`,
      MAX_EXPRESSION_LENGTH,
      'split the calculation into smaller steps',
    );
  }
  const parser = new Parser(tokenizeExpression(expression));
  if (parser.peek().kind === 'end')
    throw new CalculatorError('Expression is empty', 0, 'write a calculation like 2 * (3 + 4)');
  const value = parser.parseExpression(0, 1);
  const rest = parser.peek();
  if (rest.kind !== 'end')
    throw new CalculatorError(`Expected an operator, found ${describeToken(rest)}`, rest.position, operatorHint(rest));
  return tidyNumber(value);
}

class Parser {
  private index = 0;
  constructor(private readonly tokens: ExpressionToken[]) {}

  peek(): ExpressionToken {
    return this.tokens[this.index]!;
  }

  private next(): ExpressionToken {
    const token = this.tokens[this.index]!;
    if (token.kind !== 'end') this.index += 1;
    return token;
  }

  private expectOperator(operator: ')' | '(', context: string): void {
    const token = this.next();
    if (token.kind !== 'operator' || token.operator !== operator) {
      throw new CalculatorError(`Expected "${operator}" ${context}, found ${describeToken(token)}`, token.position);
    }
  }

  parseExpression(minimumPower: number, depth: number): number {
    if (depth > MAX_EXPRESSION_DEPTH) {
      throw new CalculatorError(
        `Expression is nested too deeply (more than ${MAX_EXPRESSION_DEPTH} levels)`,
        this.peek().position,
        'simplify the parentheses or split the calculation',
      );
    }
    let left = this.parsePrefix(depth);
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'operator' || !(token.operator in BINDING_POWER)) return left;
      const operator = token.operator as BinaryOperator;
      const [leftPower, rightPower] = BINDING_POWER[operator];
      if (leftPower <= minimumPower) return left;
      this.next();
      const right = this.parseExpression(rightPower, depth + 1);
      left = applyBinary(operator, left, right, token.position);
    }
  }

  private parsePrefix(depth: number): number {
    const token = this.next();
    if (token.kind === 'number') {
      if (!Number.isFinite(token.value)) throw new CalculatorError(`Number ${token.text} is too large`, token.position);
      return token.value;
    }
    if (token.kind === 'name') return this.parseName(token, depth);
    if (token.kind === 'operator') {
      if (token.operator === '-' || token.operator === '+') {
        const operand = this.parseExpression(UNARY_BINDING_POWER, depth + 1);
        return token.operator === '-' ? -operand : operand;
      }
      if (token.operator === '(') {
        const value = this.parseExpression(0, depth + 1);
        this.expectOperator(')', `to close the "(" at position ${token.position + 1}`);
        return value;
      }
    }
    throw new CalculatorError(`Expected a number, name or "(", found ${describeToken(token)}`, token.position);
  }

  private parseName(token: ExpressionToken & { kind: 'name' }, depth: number): number {
    const name = token.name.toLowerCase();
    const following = this.peek();
    const isCall = following.kind === 'operator' && following.operator === '(';
    const mathFunction = MATH_FUNCTIONS.get(name);
    if (mathFunction !== undefined) {
      if (!isCall)
        throw new CalculatorError(`"${token.name}" is a function`, token.position, `call it like ${name}(2)`);
      this.next();
      const values = this.parseArguments(depth);
      if (values.length < mathFunction.minArguments || values.length > mathFunction.maxArguments) {
        const expected =
          mathFunction.minArguments === mathFunction.maxArguments
            ? `${mathFunction.minArguments}`
            : `${mathFunction.minArguments} to ${mathFunction.maxArguments}`;
        throw new CalculatorError(`${name}() takes ${expected} argument(s), got ${values.length}`, token.position);
      }
      const value = mathFunction.apply(values, token.position);
      if (!Number.isFinite(value))
        failNonFinite(value, `${name}(${values.map(formatNumber).join(', ')})`, token.position);
      return value;
    }
    const constant = MATH_CONSTANTS.get(name);
    if (constant !== undefined) {
      if (isCall)
        throw new CalculatorError(
          `"${token.name}" is a constant, not a function`,
          token.position,
          `write ${name} * (...) to multiply`,
        );
      return constant;
    }
    throw new CalculatorError(
      `Unknown name "${token.name}"`,
      token.position,
      `known functions: ${[...MATH_FUNCTIONS.keys()].join(', ')}; constants: ${[...MATH_CONSTANTS.keys()].join(', ')}`,
    );
  }

  /** Parses `a, b, c)` after a function's opening parenthesis. */
  private parseArguments(depth: number): number[] {
    const values: number[] = [];
    const first = this.peek();
    if (first.kind === 'operator' && first.operator === ')') {
      this.next();
      return values;
    }
    for (;;) {
      values.push(this.parseExpression(0, depth + 1));
      const separator = this.next();
      if (separator.kind === 'operator' && separator.operator === ')') return values;
      if (separator.kind !== 'operator' || separator.operator !== ',') {
        throw new CalculatorError(
          `Expected "," or ")" in the argument list, found ${describeToken(separator)}`,
          separator.position,
        );
      }
    }
  }
}

function applyBinary(operator: BinaryOperator, left: number, right: number, position: number): number {
  if (right === 0 && (operator === '/' || operator === '%')) {
    const kind = operator === '/' ? 'Division' : 'Remainder';
    throw new CalculatorError(`${kind} by zero (${describeBinary(operator, left, right)})`, position);
  }
  if (operator === '^' && left === 0 && right < 0) {
    throw new CalculatorError(
      `Division by zero (${describeBinary(operator, left, right)}: 0 to a negative power)`,
      position,
    );
  }
  const value =
    operator === '+'
      ? left + right
      : operator === '-'
        ? left - right
        : operator === '*'
          ? left * right
          : operator === '/'
            ? left / right
            : operator === '%'
              ? left % right
              : left ** right;
  if (!Number.isFinite(value)) failNonFinite(value, describeBinary(operator, left, right), position);
  return value;
}

function describeBinary(operator: BinaryOperator, left: number, right: number): string {
  return `${formatNumber(left)} ${operator} ${formatNumber(right)}`;
}

/** Every intermediate result must be a finite number: overflow and domain errors are reported where they happen. */
function failNonFinite(value: number, description: string, position: number): never {
  if (Number.isNaN(value)) throw new CalculatorError(`${description} is not a real number`, position);
  throw new CalculatorError(`Overflow: ${description} is too large (beyond ±1.8e308)`, position);
}

function describeToken(token: ExpressionToken): string {
  switch (token.kind) {
    case 'number':
      return `number ${token.text}`;
    case 'name':
      return `"${token.name}"`;
    case 'operator':
      return `"${token.operator}"`;
    case 'end':
      return 'the end of the expression';
  }
}

function operatorHint(token: ExpressionToken): string | undefined {
  if (token.kind === 'operator' && token.operator === ',') {
    return 'commas only separate function arguments; write numbers without thousands separators';
  }
  if (token.kind === 'number' || token.kind === 'name' || (token.kind === 'operator' && token.operator === '(')) {
    return 'write multiplication explicitly, like 2 * pi or 3 * (4 + 5)';
  }
  return undefined;
}
