import { getEventListeners } from 'node:events';
import type { RunEvent } from '@bridle/events';
import type { Tool, ToolCall } from '@bridle/protocol';

/** A JSON Schema tool adding two numbers; records every call's arguments. */
export function addTool(overrides: Partial<Tool> = {}): Tool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name: 'add',
    description: 'Add two numbers',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    execute(args) {
      calls.push(args);
      const { a, b } = args as { a: number; b: number };
      return a + b;
    },
    ...overrides,
    calls,
  };
}

/** A tool with a `{ value?: unknown }` schema whose execute is the given function. */
export function tool(
  name: string,
  execute: Tool['execute'],
  flags: Pick<Tool, 'readOnly' | 'requiresApproval'> = {},
): Tool {
  return { name, description: `${name} tool`, parameters: { type: 'object' }, execute, ...flags };
}

export function call(id: string, name: string, args: unknown = {}): ToolCall {
  return { id, name, arguments: args };
}

/** Collects events; `types()` lists their types in order. */
export function recorder() {
  const events: RunEvent[] = [];
  return {
    events,
    onEvent: (event: RunEvent) => {
      events.push(event);
    },
    types: () => events.map((event) => event.type),
    ofType: <T extends RunEvent['type']>(type: T) =>
      events.filter((event) => event.type === type) as Extract<RunEvent, { type: T }>[],
  };
}

/** Abort listeners currently registered on `signal`. */
export function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

/**
 * Tracks the timers that @bridle/core's own code creates (by the caller's file in the stack), so a test
 * can check none is still pending after a run. `stop()` restores the real functions.
 */
export function trackCoreTimers() {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const pending = new Set<unknown>();
  const tracked = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const fromCore = /packages[\\/]core[\\/]src[\\/]/.test(new Error().stack ?? '');
    const handle: unknown = realSet(
      (...callArgs: unknown[]) => {
        pending.delete(handle);
        callback(...callArgs);
      },
      ms,
      ...args,
    );
    if (fromCore) pending.add(handle);
    return handle;
  }) as unknown as typeof setTimeout;
  globalThis.setTimeout = tracked;
  globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(handle);
    realClear(handle);
  }) as typeof clearTimeout;
  return {
    /** Core timers neither fired nor cleared. */
    pending: () => pending.size,
    stop: () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run (several turns of the microtask queue and one macrotask). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Rejects with the signal's reason when it aborts; never settles otherwise (honours its signal). */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
