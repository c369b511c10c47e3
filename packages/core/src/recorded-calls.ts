import type { ToolCall } from '@bridle/protocol';

/** Deeper than this, a copy gives up and `structuredClone` (which also handles cycles) takes over. */
const MAX_PLAIN_DEPTH = 64;

class NotPlain extends Error {}

/** A deep copy of plain data (arrays, plain objects, primitives); throws `NotPlain` for anything else. */
function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_PLAIN_DEPTH) throw new NotPlain();
  if (Array.isArray(value)) {
    const copy = new Array(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = copyPlain(value[index], depth + 1);
    return copy;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new NotPlain();
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyPlain((value as Record<string, unknown>)[key], depth + 1);
    // An own "__proto__" key (JSON.parse makes one) must stay a key, not become the prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** A private copy of tool call arguments; the original when it cannot be copied (a function inside, say). */
function copyArguments(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  try {
    return copyPlain(value, 0);
  } catch {
    try {
      return structuredClone(value);
    } catch {
      return value;
    }
  }
}

/**
 * The tool calls as the transcript records them: each with its own copy of the arguments. Tools receive
 * the model's objects (for a JSON Schema tool, the very object that was validated), so a tool that
 * mutates its arguments cannot rewrite what the model asked for in the transcript sent back to it.
 */
export function recordedCalls(calls: readonly ToolCall[]): ToolCall[] {
  return calls.map((call) => ({ id: call.id, name: call.name, arguments: copyArguments(call.arguments) }));
}
