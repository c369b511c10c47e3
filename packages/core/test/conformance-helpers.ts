import type { RunEvent } from '@bridle/events';
import type { ModelResponse, Tool, ToolCall } from '@bridle/protocol';

/** A promise with its resolve and reject exposed, so a test decides when (and in what order) work ends. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise chain and I/O callback run (no timers involved, so no durations). */
export async function settle(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A JSON Schema tool taking any object; records the arguments it was called with. */
export function probeTool(
  name: string,
  execute: Tool['execute'],
  flags: Pick<Tool, 'readOnly' | 'requiresApproval'> = {},
): Tool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    description: `${name} probe`,
    parameters: { type: 'object' },
    execute(args, context) {
      calls.push(args);
      return execute(args, context);
    },
    ...flags,
    calls,
  };
}

/** `{ a: number }` JSON Schema tool that returns `a * 2`. */
export function doubleTool(): Tool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name: 'double',
    description: 'Doubles a',
    parameters: {
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
      additionalProperties: false,
    },
    execute(args) {
      calls.push(args);
      return (args as { a: number }).a * 2;
    },
    calls,
  };
}

/** A response asking for the given tool calls (`[id, name, arguments?]`). */
export function ask(...calls: [id: string, name: string, args?: unknown][]): ModelResponse {
  return { content: '', toolCalls: calls.map(([id, name, args]): ToolCall => ({ id, name, arguments: args ?? {} })) };
}

/** Collects the events of a run. */
export function recorder() {
  const events: RunEvent[] = [];
  return {
    events,
    onEvent(event: RunEvent) {
      events.push(event);
    },
    types: () => events.map((event) => event.type),
  };
}

/** Checks the event invariants of SPEC: increasing sequence, ISO timestamps, one `run_end`, last. */
export function expectEventInvariants(events: readonly RunEvent[], status: string): void {
  const failures: string[] = [];
  events.forEach((event, index) => {
    if (index > 0 && !(event.sequence > (events[index - 1] as RunEvent).sequence))
      failures.push(`sequence not increasing at ${index}`);
    if (new Date(event.timestamp).toISOString() !== event.timestamp) failures.push(`timestamp not ISO at ${index}`);
  });
  const ends = events.filter((event) => event.type === 'run_end');
  if (ends.length !== 1) failures.push(`${ends.length} run_end events`);
  const last = events.at(-1);
  if (last?.type !== 'run_end') failures.push(`last event is ${last?.type}`);
  else if (last.status !== status) failures.push(`run_end status ${last.status}, expected ${status}`);
  if (failures.length > 0) throw new Error(failures.join('; '));
}
