/**
 * A calculator expression that cannot be evaluated: bad syntax, an unknown name, a domain error,
 * division by zero or a result that is not a finite number. `position` is 0-based; the message
 * shows it 1-based and says what to do instead.
 */
export class CalculatorError extends Error {
  /** 0-based index into the expression of the offending token or operator. */
  readonly position: number;

  constructor(problem: string, position: number, hint?: string) {
    super(`${problem} at position ${position + 1}${hint === undefined ? '' : `: ${hint}`}`);
    this.name = 'CalculatorError';
    this.position = position;
  }
}
