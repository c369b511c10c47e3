import { CalculatorError } from './calculator-error';

/** One lexical token of a calculator expression; `position` is the 0-based index of its first character. */
export type ExpressionToken =
  | { kind: 'number'; value: number; text: string; position: number }
  | { kind: 'name'; name: string; position: number }
  | { kind: 'operator'; operator: '+' | '-' | '*' | '/' | '%' | '^' | '(' | ')' | ','; position: number }
  | { kind: 'end'; position: number };

const isDigit = (character: string | undefined) => character !== undefined && character >= '0' && character <= '9';
const isNameStart = (character: string | undefined) =>
  character !== undefined &&
  ((character >= 'a' && character <= 'z') || (character >= 'A' && character <= 'Z') || character === '_');
const isNamePart = (character: string | undefined) => isNameStart(character) || isDigit(character);
const SINGLE_OPERATORS = new Set(['+', '-', '*', '/', '%', '^', '(', ')', ',']);

/**
 * Splits an expression into tokens. Throws {@link CalculatorError} naming the position (1-based in the
 * message) of the first character that is not part of the grammar. `**` is read as `^`.
 */
export function tokenizeExpression(source: string): ExpressionToken[] {
  const tokens: ExpressionToken[] = [];
  let index = 0;
  while (index < source.length) {
    const character = source[index]!;
    if (character === ' ' || character === '\t' || character === '\n' || character === '\r') {
      index += 1;
    } else if (isDigit(character) || (character === '.' && isDigit(source[index + 1]))) {
      const end = scanNumber(source, index);
      const text = source.slice(index, end);
      tokens.push({ kind: 'number', value: Number(text), text, position: index });
      index = end;
    } else if (isNameStart(character)) {
      let end = index + 1;
      while (isNamePart(source[end])) end += 1;
      tokens.push({ kind: 'name', name: source.slice(index, end), position: index });
      index = end;
    } else if (character === '*' && source[index + 1] === '*') {
      tokens.push({ kind: 'operator', operator: '^', position: index });
      index += 2;
    } else if (SINGLE_OPERATORS.has(character)) {
      tokens.push({ kind: 'operator', operator: character as '+', position: index });
      index += 1;
    } else {
      throw new CalculatorError(
        `Unexpected character ${JSON.stringify(character)}`,
        index,
        'use numbers, + - * / % ^, parentheses and the listed functions and constants',
      );
    }
  }
  tokens.push({ kind: 'end', position: source.length });
  return tokens;
}

/** Returns the index just past a decimal literal starting at `start` (digits, optional fraction and exponent). */
function scanNumber(source: string, start: number): number {
  let end = start;
  while (isDigit(source[end])) end += 1;
  if (source[end] === '.') {
    end += 1;
    while (isDigit(source[end])) end += 1;
  }
  if (source[end] === 'e' || source[end] === 'E') {
    const signLength = source[end + 1] === '+' || source[end + 1] === '-' ? 1 : 0;
    // Only an exponent when digits follow: `2e` is a number followed by the name `e`.
    if (isDigit(source[end + 1 + signLength])) {
      end += 1 + signLength;
      while (isDigit(source[end])) end += 1;
    }
  }
  return end;
}
