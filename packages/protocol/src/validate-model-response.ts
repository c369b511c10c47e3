import { describeValue } from './describe-value';
import { ModelResponseError } from './errors';
import { jsonValueProblem } from './json-value';
import type { ModelResponse } from './types';

const SHAPE = 'A model must resolve to { content: string, toolCalls?: { id, name, arguments }[], usage? }.';

const USAGE_KEYS = [
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'costUsd',
] as const;
/** The first two of {@link USAGE_KEYS} are required; the others may be absent. */
const REQUIRED_USAGE_KEYS = 2;
const FINISH_REASONS = new Set<string>(['stop', 'length', 'tool_calls', 'content_filter', 'error', 'other']);

function fail(problem: string): never {
  throw new ModelResponseError(`Invalid model response: ${problem}. ${SHAPE}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Asserts that `value` is a well-formed {@link ModelResponse}: an object with string `content`; `toolCalls`
 * absent or an array of objects with non-empty string `id` and `name`, an own `arguments` key and unique ids;
 * `usage`, when present, with finite non-negative token counts (and cost); tool call `arguments` and
 * `providerData` JSON values; `finishReason` one of the `FinishReason`s; `model` a non-empty string. Throws `ModelResponseError` naming the problem.
 */
export function validateModelResponse(value: unknown): asserts value is ModelResponse {
  if (!isPlainObject(value)) fail(`expected an object, got ${describeValue(value)}`);
  if (typeof value.content !== 'string') fail(`content must be a string, got ${describeValue(value.content)}`);
  const { toolCalls, usage, finishReason, providerData, model } = value;
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) fail(`toolCalls must be an array when present, got ${describeValue(toolCalls)}`);
    const ids = toolCalls.length > 1 ? new Set<string>() : undefined;
    for (let index = 0; index < toolCalls.length; index++) {
      const call: unknown = toolCalls[index];
      if (!isPlainObject(call)) fail(`toolCalls[${index}] must be an object, got ${describeValue(call)}`);
      if (typeof call.id !== 'string' || call.id === '')
        fail(`toolCalls[${index}].id must be a non-empty string, got ${describeValue(call.id)}`);
      if (typeof call.name !== 'string' || call.name === '')
        fail(`toolCalls[${index}].name must be a non-empty string, got ${describeValue(call.name)}`);
      if (!Object.hasOwn(call, 'arguments')) fail(`toolCalls[${index}] has no own "arguments" key`);
      // `undefined` arguments (a call with none) reach the registry, which tells the model.
      const argumentsProblem = call.arguments === undefined ? undefined : jsonValueProblem(call.arguments);
      if (argumentsProblem)
        fail(`toolCalls[${index}].arguments must be JSON (${argumentsProblem.replace('$', 'arguments')})`);
      if (ids?.has(call.id))
        fail(`toolCalls[${index}].id ${JSON.stringify(call.id)} is used by an earlier call of the same response`);
      ids?.add(call.id);
    }
  }
  if (usage !== undefined) {
    if (!isPlainObject(usage)) fail(`usage must be an object when present, got ${describeValue(usage)}`);
    for (let index = 0; index < USAGE_KEYS.length; index++) {
      const key = USAGE_KEYS[index] as (typeof USAGE_KEYS)[number];
      const count = usage[key];
      if (count === undefined && index >= REQUIRED_USAGE_KEYS) continue;
      if (typeof count !== 'number' || !Number.isFinite(count) || count < 0)
        fail(`usage.${key} must be a finite number >= 0, got ${describeValue(count)}`);
    }
  }
  if (finishReason !== undefined && !FINISH_REASONS.has(finishReason as string))
    fail(`finishReason must be one of ${[...FINISH_REASONS].join(', ')}, got ${describeValue(finishReason)}`);
  if (model !== undefined && (typeof model !== 'string' || model === ''))
    fail(
      `model must be a non-empty string when present (the id of the model that answered), got ${describeValue(model)}`,
    );
  if (providerData !== undefined) {
    const problem = jsonValueProblem(providerData);
    if (problem) fail(`providerData must be JSON (${problem.replace('$', 'providerData')})`);
  }
}
