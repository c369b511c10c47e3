import { isJsonLeaf } from './internal/json-leaf';
import type { JsonValue } from './types';

/**
 * Why `value` is not a JSON value (a cycle, a BigInt, a function, a symbol, `undefined`, a non-finite
 * number, a class instance other than a plain object or array), as `"$.path: reason"`; `undefined` when
 * it is one. Iterative, so nesting depth cannot overflow the stack. Never throws.
 */
export function jsonValueProblem(value: unknown): string | undefined {
  if (isFlatJson(value)) return undefined;
  const stack: { value: unknown; path: string }[] = [{ value, path: '$' }];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const { value: current, path } = stack.pop() as { value: unknown; path: string };
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return `${path}: ${current} is not a JSON number`;
      continue;
    }
    if (current === undefined) return `${path}: undefined is not JSON`;
    if (typeof current !== 'object') return `${path}: a ${typeof current} is not JSON`;
    const prototype = Object.getPrototypeOf(current);
    if (!Array.isArray(current) && prototype !== Object.prototype && prototype !== null)
      return `${path}: a ${prototype?.constructor?.name ?? 'class'} instance is not JSON`;
    // Any object seen twice is refused: a cycle, or a shared subtree that JSON would duplicate (rare in
    // parsed provider output, and refusing it keeps the walk linear without ancestor bookkeeping).
    if (seen.has(current)) return `${path}: a reference cycle or shared object is not plain JSON`;
    seen.add(current);
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], path: `${path}[${index}]` });
    } else {
      for (const key of Object.keys(current))
        stack.push({ value: (current as Record<string, unknown>)[key], path: `${path}.${key}` });
    }
  }
  return undefined;
}

/**
 * The common case, without paths or a `seen` set: a JSON leaf, or a plain object or array of leaves (most
 * tool call arguments). False means "walk it", not "not JSON".
 */
function isFlatJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return isJsonLeaf(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) if (!isJsonLeaf(value[index])) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !isJsonLeaf((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** True when `value` is a {@link JsonValue}: see {@link jsonValueProblem}. */
export function isJsonValue(value: unknown): value is JsonValue {
  return jsonValueProblem(value) === undefined;
}
