import { describe, expect, it } from 'vitest';
import { CalculatorError } from '../src/calculator-error';
import { evaluateExpression } from '../src/evaluate-expression';

describe('evaluateExpression: exact results', () => {
  it.each([
    ['1 + 2', 3],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 3', 1],
    ['-7 % 3', -1],
    ['7.5 % 2', 1.5],
    ['2 ^ 10', 1024],
    ['2 ** 10', 1024],
    ['2 ^ 3 ^ 2', 512],
    ['(2 ^ 3) ^ 2', 64],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['2 ^ -1', 0.5],
    ['-(-3)', 3],
    ['--3', 3],
    ['+4', 4],
    ['- 3 * - 2', 6],
    ['.5 + 1.25', 1.75],
    ['1.5e3', 1500],
    ['2.5E-2 * 4', 0.1],
    ['0.1 + 0.2', 0.3],
    ['0.1 * 3', 0.3],
    ['1 / 3', 0.3333333333333333],
    ['2 ^ 53', 9007199254740992],
    ['1e300 * 1e8', 1e308],
    ['sqrt(16)', 4],
    ['SQRT(2) ^ 2', 2],
    ['cbrt(27)', 3],
    ['abs(-3.5)', 3.5],
    ['round(2.5)', 3],
    ['round(-2.5)', -3],
    ['round(2.4)', 2],
    ['floor(-1.5)', -2],
    ['ceil(1.2)', 2],
    ['trunc(-1.7)', -1],
    ['sign(-9)', -1],
    ['min(3, 1, 2)', 1],
    ['max(3, 1, 2)', 3],
    ['hypot(3, 4)', 5],
    ['log(1000)', 3],
    ['log2(8)', 3],
    ['ln(e)', 1],
    ['exp(0)', 1],
    ['sin(0)', 0],
    ['cos(pi)', -1],
    // Radians in binary floating point: sin(pi) is the double nearest 1.22e-16, as in every IEEE calculator.
    ['sin(pi)', 1.2246467991473532e-16],
    ['tan(pi / 4)', 1],
    ['asin(1) * 2', Math.PI],
    ['atan(1) * 4', Math.PI],
    ['tau / 2', Math.PI],
    ['pi', Math.PI],
    ['E', Math.E],
    ['2 * (3 + (4 - 1) * (2 + 2)) / 5', 6],
    ['max(1, min(5, 3) ^ 2) - 0', 9],
    [' \t1\n+\r1 ', 2],
    ['-0', 0],
    ['0 * -1', 0],
  ])('%s = %s', (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });
});

function errorOf(expression: string): CalculatorError {
  try {
    evaluateExpression(expression);
  } catch (error) {
    expect(error).toBeInstanceOf(CalculatorError);
    return error as CalculatorError;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to fail`);
}

describe('evaluateExpression: errors name the problem and the position', () => {
  it.each([
    ['1 / 0', 'Division by zero (1 / 0) at position 3'],
    ['5 % (2 - 2)', 'Remainder by zero (5 % 0) at position 3'],
    ['0 ^ -1', 'Division by zero (0 ^ -1: 0 to a negative power) at position 3'],
    ['10 ^ 400', 'Overflow: 10 ^ 400 is too large (beyond ±1.8e308) at position 4'],
    ['1e308 * 10', 'Overflow: 1e+308 * 10 is too large (beyond ±1.8e308) at position 7'],
    ['exp(1000)', 'Overflow: exp(1000) is too large (beyond ±1.8e308) at position 1'],
    ['1e400', 'Number 1e400 is too large at position 1'],
    ['sqrt(-4)', 'sqrt(-4) is not a real number: the argument is negative at position 1'],
    ['ln(0)', 'ln(0) is undefined: the argument must be greater than 0 at position 1'],
    ['log(-1)', 'log(-1) is undefined: the argument must be greater than 0 at position 1'],
    ['asin(2)', 'asin(2) is undefined: the argument must be between -1 and 1 at position 1'],
    ['(-8) ^ (1/3)', '-8 ^ 0.3333333333333333 is not a real number at position 6'],
    ['', 'Expression is empty at position 1: write a calculation like 2 * (3 + 4)'],
    ['   ', 'Expression is empty at position 1: write a calculation like 2 * (3 + 4)'],
    ['1 +', 'Expected a number, name or "(", found the end of the expression at position 4'],
    ['(1 + 2', 'Expected ")" to close the "(" at position 1, found the end of the expression at position 7'],
    ['1 + 2)', 'Expected an operator, found ")" at position 6'],
    [
      '2 pi',
      'Expected an operator, found "pi" at position 3: write multiplication explicitly, like 2 * pi or 3 * (4 + 5)',
    ],
    [
      '2(3)',
      'Expected an operator, found "(" at position 2: write multiplication explicitly, like 2 * pi or 3 * (4 + 5)',
    ],
    [
      '1,000 + 1',
      'Expected an operator, found "," at position 2: commas only separate function arguments; write numbers without thousands separators',
    ],
    [
      '1.2.3',
      'Expected an operator, found number .3 at position 4: write multiplication explicitly, like 2 * pi or 3 * (4 + 5)',
    ],
    ['* 2', 'Expected a number, name or "(", found "*" at position 1'],
    [
      '2 & 3',
      'Unexpected character "&" at position 3: use numbers, + - * / % ^, parentheses and the listed functions and constants',
    ],
    [
      'x + 1',
      'Unknown name "x" at position 1: known functions: sqrt, cbrt, abs, round, floor, ceil, trunc, sign, log, log10, log2, ln, exp, sin, cos, tan, asin, acos, atan, min, max, hypot; constants: pi, e, tau',
    ],
    ['sqrt', '"sqrt" is a function at position 1: call it like sqrt(2)'],
    ['pi(2)', '"pi" is a constant, not a function at position 1: write pi * (...) to multiply'],
    ['sqrt(1, 2)', 'sqrt() takes 1 argument(s), got 2 at position 1'],
    ['max()', 'max() takes 1 to 100 argument(s), got 0 at position 1'],
    ['max(1 2)', 'Expected "," or ")" in the argument list, found number 2 at position 7'],
  ])('%j', (expression, message) => {
    expect(errorOf(expression).message).toBe(message);
  });

  it('never evaluates JavaScript: prototype names, globals and code are unknown names or bad characters', () => {
    expect(errorOf('constructor').message).toMatch(/^Unknown name "constructor" at position 1/);
    expect(errorOf('__proto__').message).toMatch(/^Unknown name "__proto__" at position 1/);
    expect(errorOf('process.exit(1)').message).toMatch(/^Unexpected character "\." at position 8/);
    expect(errorOf('process').message).toMatch(/^Unknown name "process" at position 1/);
    expect(errorOf('toString(1)').message).toMatch(/^Unknown name "toString"/);
    expect(errorOf('"1" + 1').message).toBe(
      'Unexpected character "\\"" at position 1: use numbers, + - * / % ^, parentheses and the listed functions and constants',
    );
    expect(errorOf('a=1').message).toMatch(/^Unexpected character "=" at position 2/);
  });

  it('refuses expressions longer than 1,000 characters', () => {
    expect(evaluateExpression(`${'1+'.repeat(499)}1`)).toBe(500);
    expect(errorOf(`${'1+'.repeat(500)}1`).message).toBe(
      'Expression is too long (1001 characters, at most 1000) at position 1001: split the calculation into smaller steps',
    );
  });

  it('refuses nesting deeper than 64 levels, for parentheses, unary signs and power chains', () => {
    expect(evaluateExpression(`${'('.repeat(63)}1${')'.repeat(63)}`)).toBe(1);
    expect(errorOf(`${'('.repeat(64)}1${')'.repeat(64)}`).message).toBe(
      'Expression is nested too deeply (more than 64 levels) at position 65: simplify the parentheses or split the calculation',
    );
    expect(errorOf(`${'-'.repeat(200)}1`).message).toMatch(/^Expression is nested too deeply \(more than 64 levels\)/);
    expect(errorOf(`${'1^'.repeat(200)}1`).message).toMatch(/^Expression is nested too deeply \(more than 64 levels\)/);
    expect(errorOf(`${'sqrt('.repeat(100)}1${')'.repeat(100)}`).message).toMatch(/^Expression is nested too deeply/);
  });

  it('reports the 0-based position on the error object', () => {
    expect(errorOf('12 + foo').position).toBe(5);
  });
});
