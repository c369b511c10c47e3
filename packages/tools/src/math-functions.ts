import { CalculatorError } from './calculator-error';

/** A function the calculator can call: fixed arity range and a domain-checked implementation. */
interface MathFunction {
  minArguments: number;
  maxArguments: number;
  apply(values: number[], position: number): number;
}

function unary(
  name: string,
  implementation: (value: number) => number,
  domain?: (value: number) => string | undefined,
) {
  return {
    minArguments: 1,
    maxArguments: 1,
    apply(values: number[], position: number): number {
      const value = values[0]!;
      const problem = domain?.(value);
      if (problem !== undefined) throw new CalculatorError(`${name}(${formatNumber(value)}) ${problem}`, position);
      return implementation(value);
    },
  } satisfies MathFunction;
}

const positiveOnly = (value: number) => (value > 0 ? undefined : 'is undefined: the argument must be greater than 0');
const unitInterval = (value: number) =>
  value >= -1 && value <= 1 ? undefined : 'is undefined: the argument must be between -1 and 1';

/** Rounds half away from zero (round(-2.5) = -3), as calculators do; JavaScript's Math.round does not. */
function roundHalfAwayFromZero(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** The functions by lower-case name. A `Map`, so names like `constructor` never reach an object prototype. */
export const MATH_FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map<string, MathFunction>([
  [
    'sqrt',
    unary('sqrt', Math.sqrt, (value) => (value >= 0 ? undefined : 'is not a real number: the argument is negative')),
  ],
  ['cbrt', unary('cbrt', Math.cbrt)],
  ['abs', unary('abs', Math.abs)],
  ['round', unary('round', roundHalfAwayFromZero)],
  ['floor', unary('floor', Math.floor)],
  ['ceil', unary('ceil', Math.ceil)],
  ['trunc', unary('trunc', Math.trunc)],
  ['sign', unary('sign', Math.sign)],
  ['log', unary('log', Math.log10, positiveOnly)],
  ['log10', unary('log10', Math.log10, positiveOnly)],
  ['log2', unary('log2', Math.log2, positiveOnly)],
  ['ln', unary('ln', Math.log, positiveOnly)],
  ['exp', unary('exp', Math.exp)],
  ['sin', unary('sin', Math.sin)],
  ['cos', unary('cos', Math.cos)],
  ['tan', unary('tan', Math.tan)],
  ['asin', unary('asin', Math.asin, unitInterval)],
  ['acos', unary('acos', Math.acos, unitInterval)],
  ['atan', unary('atan', Math.atan)],
  ['min', { minArguments: 1, maxArguments: 100, apply: (values) => Math.min(...values) }],
  ['max', { minArguments: 1, maxArguments: 100, apply: (values) => Math.max(...values) }],
  ['hypot', { minArguments: 1, maxArguments: 100, apply: (values) => Math.hypot(...values) }],
]);

/** The constants by lower-case name. */
export const MATH_CONSTANTS: ReadonlyMap<string, number> = new Map([
  ['pi', Math.PI],
  ['e', Math.E],
  ['tau', 2 * Math.PI],
]);

/** A number as the calculator shows it in messages and results (no `-0`, at most 15 significant digits). */
export function formatNumber(value: number): string {
  return String(tidyNumber(value));
}

/**
 * Hides binary floating-point noise: a non-integer within 4 units in the last place of its
 * 15-significant-digit rounding becomes that rounding (0.1 + 0.2 gives 0.3, while pi keeps all its
 * digits); integers are exact as computed; `-0` becomes `0`.
 */
export function tidyNumber(value: number): number {
  if (Object.is(value, -0)) return 0;
  if (Number.isInteger(value) || !Number.isFinite(value)) return value;
  const rounded = Number(value.toPrecision(15));
  return Math.abs(rounded - value) <= Math.abs(value) * Number.EPSILON * 4 ? rounded : value;
}
