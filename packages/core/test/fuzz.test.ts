import type { ModelResponse, Tool, ToolCall } from '@bridle/protocol';
import {
  expectValidTranscript,
  type Fault,
  faultyModel,
  type Random,
  scriptedModel,
  seededRandom,
} from '@bridle/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApproveHook, runAgent } from '../src/index';
import { abortListeners, recorder, trackCoreTimers, untilAborted } from './helpers';

const BASE_SEED = 20_260_301;
const CASES = 500;
const CHUNK = 100;

const schema = { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'], additionalProperties: false };

/** The world of one case: tools that succeed, fail, hang or ignore their signal, and what they saw. */
function world(random: Random) {
  const seen = { executions: 0, invalid: 0 };
  const make = (name: string, run: (context: { signal: AbortSignal }) => unknown, flags: Partial<Tool> = {}): Tool => ({
    name,
    description: name,
    parameters: schema,
    ...flags,
    execute(args, context) {
      seen.executions++;
      if (!Number.isInteger((args as { x?: unknown } | undefined)?.x)) seen.invalid++;
      return run(context);
    },
  });
  const pause = (signal: AbortSignal, ms: number) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  const tools = [
    make('ro', ({ signal }) => pause(signal, random.int(0, 2)).then(() => ({ read: true })), { readOnly: true }),
    make('ro_deaf', () => new Promise(() => {}), { readOnly: true }),
    make('rw', () => 'written'),
    make('fail', () => {
      throw new Error('tool failed');
    }),
    make('hang', ({ signal }) => untilAborted(signal)),
    make('deaf', () => new Promise(() => {})),
    make('guarded', () => 'approved work', { requiresApproval: true }),
    make('big', () => 'z'.repeat(random.int(0, 3_000))),
    make('odd', () => random.pick([undefined, 10n, { nested: [1] }, 'text'])),
  ];
  return { seen, tools, names: [...tools.map((tool) => tool.name), 'ghost'] };
}

function response(random: Random, callIndex: number, names: string[], structured: boolean): ModelResponse {
  const usage = { inputTokens: random.int(0, 50), outputTokens: random.int(0, 10) };
  if (random.bool(0.25)) return { content: structured && random.bool(0.7) ? '{"x":1}' : 'final answer', usage };
  const calls: ToolCall[] = [];
  for (let index = 0; index < random.int(1, 5); index++) {
    const args = random.bool(0.8)
      ? { x: random.int(-5, 5) }
      : random.pick<unknown>([{ x: 'one' }, {}, '{not json', { x: 1.5 }]);
    calls.push({ id: `s${callIndex}c${index}`, name: random.pick(names), arguments: args });
  }
  return { content: random.bool() ? '' : 'working', toolCalls: calls, usage };
}

function fault(random: Random): Fault | undefined {
  if (random.bool(0.75)) return undefined;
  return random.pick<Fault>([
    { type: 'throw' },
    { type: 'provider_error', code: 'server' },
    { type: 'provider_error', code: 'rate_limited', retryAfterMs: random.int(0, 3) },
    { type: 'provider_error', code: 'auth' },
    { type: 'malformed' },
    { type: 'hang' },
    { type: 'hang', ignoreSignal: true },
    { type: 'delay', ms: random.int(0, 3) },
  ]);
}

function approveHook(random: Random): ApproveHook | undefined {
  return random.pick<ApproveHook | undefined>([
    undefined,
    () => true,
    () => false,
    () => {
      throw new Error('no');
    },
    () => new Promise<boolean>(() => {}),
    async () => true,
  ]);
}

const reached = new Map<string, number>();
let timers: ReturnType<typeof trackCoreTimers>;
beforeEach(() => {
  timers = trackCoreTimers();
});
afterEach(() => timers.stop());

async function runCase(seed: number): Promise<void> {
  const random = seededRandom(seed);
  const { seen, tools, names } = world(random);
  const structured = random.bool(0.15);
  const stream = random.bool(0.2);
  const inner = scriptedModel((_request, callIndex) => response(random, callIndex, names, structured), { stream });
  const model = faultyModel(inner, () => fault(random));
  const maxSteps = random.int(1, 6);
  const maxToolCalls = random.pick([0, 1, 2, 3, 5, 8, Number.POSITIVE_INFINITY]);
  const timeoutMs = random.bool(0.7) ? random.int(1, 25) : undefined;
  const abortAfter = timeoutMs === undefined || random.bool(0.3) ? random.int(0, 25) : undefined;
  const controller = new AbortController();
  const abortTimer = abortAfter === undefined ? undefined : setTimeout(() => controller.abort(), abortAfter);
  const events = recorder();
  const approve = approveHook(random);

  const result = await runAgent({
    model,
    tools,
    prompt: `case ${seed}`,
    maxSteps,
    maxToolCalls,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    signal: controller.signal,
    toolConcurrency: random.int(1, 4),
    retry: { maxRetries: random.int(0, 2), baseDelayMs: random.int(0, 3), maxDelayMs: 5 },
    context: {
      maxToolResultChars: random.int(50, 2_000),
      ...(random.bool(0.25) ? { maxContextChars: random.int(100, 2_000) } : {}),
    },
    ...(approve ? { approve } : {}),
    ...(structured ? { output: { type: 'object', required: ['x'] } } : {}),
    stream,
    onEvent: events.onEvent,
  });
  clearTimeout(abortTimer);
  const executionsAtEnd = seen.executions;

  const where = `seed ${seed}: status ${result.status}`;
  reached.set(result.status, (reached.get(result.status) ?? 0) + 1);
  expectValidTranscript(result.messages);
  const types = events.types();
  expect(
    types.filter((type) => type === 'run_end'),
    where,
  ).toHaveLength(1);
  expect(types.at(-1), where).toBe('run_end');
  expect(
    events.events.every((event, index) => event.sequence === index),
    where,
  ).toBe(true);
  const admitted = result.messages.reduce(
    (sum, message) => sum + (message.role === 'assistant' ? (message.toolCalls?.length ?? 0) : 0),
    0,
  );
  expect(result.toolCalls, where).toBe(admitted);
  expect(result.toolCalls, where).toBeLessThanOrEqual(maxToolCalls);
  expect(seen.executions, where).toBeLessThanOrEqual(result.toolCalls);
  expect(seen.invalid, where).toBe(0);
  expect(result.steps, where).toBeLessThanOrEqual(maxSteps);
  expect(events.ofType('model_end'), where).toHaveLength(result.steps);
  expect(events.ofType('tool_start').length, where).toBe(events.ofType('tool_end').length);
  expect(events.ofType('tool_start').length, where).toBeLessThanOrEqual(result.toolCalls);
  const usage = events.ofType('model_end').reduce(
    (sum, event) => ({
      inputTokens: sum.inputTokens + event.usage.inputTokens,
      outputTokens: sum.outputTokens + event.usage.outputTokens,
    }),
    { inputTokens: 0, outputTokens: 0 },
  );
  expect(result.usage, where).toEqual(usage);
  if (result.status === 'completed') {
    expect(result.messages.at(-1), where).toEqual({ role: 'assistant', content: result.answer });
    if (structured) expect(result.output, where).toEqual({ x: 1 });
  } else expect(result.error, where).toBeTypeOf('string');
  if (result.status === 'timeout') expect(timeoutMs, where).toBeDefined();
  if (result.status === 'aborted') expect(controller.signal.aborted, where).toBe(true);
  if (result.status === 'step_limit') expect(result.steps, where).toBe(maxSteps);
  expect(abortListeners(controller.signal), where).toBe(0);
  expect(timers.pending(), where).toBe(0);
  // Nothing runs after the run returned: no tool starts later.
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen.executions, where).toBe(executionsAtEnd);
}

describe('fault-schedule fuzz', () => {
  for (let start = 0; start < CASES; start += CHUNK) {
    const first = BASE_SEED + start;
    const last = first + CHUNK - 1;
    it(`seeds ${first}..${last}: valid transcript, one run_end, tool accounting, budgets, no leaks`, async () => {
      for (let seed = first; seed <= last; seed++) await runCase(seed);
    });
  }

  it('the cases reached every status', () => {
    console.log('fuzz statuses', Object.fromEntries(reached));
    expect([...reached.keys()].sort()).toEqual([
      'aborted',
      'completed',
      'context_limit',
      'model_error',
      'step_limit',
      'timeout',
      'tool_limit',
    ]);
  });
});
