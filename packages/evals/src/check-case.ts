import { assertTranscript, describeValue, type Message } from '@bridle/protocol';
import type { EvalCase, EvalCaseInput } from './types';

const CASE_KEYS = new Set(['id', 'input', 'expected', 'tags', 'limits']);
const EXPECTED_KEYS = new Set(['answer', 'contains', 'regex', 'tools', 'toolsOrder', 'json']);
const LIMIT_KEYS = new Set(['maxSteps', 'maxToolCalls', 'timeoutMs', 'maxCostUsd']);
const ORDERS = new Set(['exact', 'any', 'subset']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKey(value: Record<string, unknown>, known: Set<string>, where: string): string | undefined {
  const extra = Object.keys(value).find((key) => !known.has(key));
  return extra === undefined ? undefined : `${where}unknown key "${extra}" (known: ${[...known].join(', ')})`;
}

function expectedProblem(expected: unknown): string | undefined {
  if (!isObject(expected)) return `"expected" must be an object, got ${describeValue(expected)}`;
  const extra = unknownKey(expected, EXPECTED_KEYS, '"expected": ');
  if (extra) return extra;
  const { answer, contains, regex, tools, toolsOrder, json } = expected;
  if (answer !== undefined && typeof answer !== 'string')
    return `"expected.answer" must be a string, got ${describeValue(answer)}`;
  if (
    contains !== undefined &&
    typeof contains !== 'string' &&
    !(Array.isArray(contains) && contains.every((entry) => typeof entry === 'string'))
  )
    return `"expected.contains" must be a string or an array of strings, got ${describeValue(contains)}`;
  if (regex !== undefined) {
    if (typeof regex !== 'string') return `"expected.regex" must be a string, got ${describeValue(regex)}`;
    try {
      toRegExp(regex);
    } catch (error) {
      return `"expected.regex" is not a valid regular expression: ${(error as Error).message}`;
    }
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools))
      return `"expected.tools" must be an array of {"name", "arguments"?}, got ${describeValue(tools)}`;
    for (const [index, tool] of tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '')
        return `"expected.tools[${index}]" must be an object with a "name" string, got ${describeValue(tool)}`;
      const extraKey = unknownKey(tool, new Set(['name', 'arguments']), `"expected.tools[${index}]": `);
      if (extraKey) return extraKey;
    }
  }
  if (toolsOrder !== undefined && !ORDERS.has(toolsOrder as string))
    return `"expected.toolsOrder" must be "exact", "any" or "subset", got ${describeValue(toolsOrder)}`;
  if (json !== undefined && !isObject(json) && typeof json !== 'boolean')
    return `"expected.json" must be a JSON Schema object, got ${describeValue(json)}`;
  return undefined;
}

function limitsProblem(limits: unknown): string | undefined {
  if (!isObject(limits)) return `"limits" must be an object, got ${describeValue(limits)}`;
  const extra = unknownKey(limits, LIMIT_KEYS, '"limits": ');
  if (extra) return extra;
  for (const key of ['maxSteps', 'maxToolCalls', 'timeoutMs'] as const) {
    const value = limits[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > (key === 'maxToolCalls' ? -1 : 0)))
      return `"limits.${key}" must be a ${key === 'maxToolCalls' ? 'non-negative' : 'positive'} integer, got ${describeValue(value)}`;
  }
  const cost = limits.maxCostUsd;
  if (cost !== undefined && !(typeof cost === 'number' && Number.isFinite(cost) && cost > 0))
    return `"limits.maxCostUsd" must be a positive number of dollars, got ${describeValue(cost)}`;
  return undefined;
}

function inputProblem(input: unknown): string | undefined {
  if (typeof input === 'string') return input === '' ? '"input" is an empty string' : undefined;
  if (!Array.isArray(input) || input.length === 0)
    return `"input" must be a prompt string or a non-empty array of messages, got ${describeValue(input)}`;
  try {
    assertTranscript(input as Message[]);
  } catch (error) {
    return `"input" is not a valid transcript: ${(error as Error).message}`;
  }
  return undefined;
}

/** Why a value is not a case (one sentence naming the key and the fix), or undefined when it is one. */
export function caseProblem(value: unknown): string | undefined {
  if (!isObject(value))
    return `expected an object like {"input": "...", "expected": {...}}, got ${describeValue(value)}`;
  const extra = unknownKey(value, CASE_KEYS, '');
  if (extra) return extra;
  if (value.id !== undefined && (typeof value.id !== 'string' || value.id === '' || value.id.length > 200))
    return `"id" must be a string of 1 to 200 characters, got ${describeValue(value.id)}`;
  if (!('input' in value)) return 'missing "input" (a prompt string or an array of messages)';
  const problem = inputProblem(value.input);
  if (problem) return problem;
  if (value.expected !== undefined) {
    const expected = expectedProblem(value.expected);
    if (expected) return expected;
  }
  if (value.tags !== undefined && !(Array.isArray(value.tags) && value.tags.every((tag) => typeof tag === 'string')))
    return `"tags" must be an array of strings, got ${describeValue(value.tags)}`;
  if (value.limits !== undefined) return limitsProblem(value.limits);
  return undefined;
}

/** A case with its default id (`case-<n>`, n from 1). */
export function withId(value: EvalCaseInput, position: number): EvalCase {
  return { ...value, id: value.id ?? `case-${position}` };
}

/** `"pattern"` or `"/pattern/flags"` as a RegExp; throws SyntaxError when it is not one. */
export function toRegExp(text: string): RegExp {
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(text);
  return literal ? new RegExp(literal[1] as string, literal[2]) : new RegExp(text);
}
