import type { EventObserver, RunEvent } from '@bridle/events';
import { assertTranscript, ConfigError, type Message, type Model, type Store, type Tool } from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { ToolRegistry } from '@bridle/registry';
import { checkKeys, functionOption, invalidOption, numberOption, objectOption } from './option-checks';
import { registryFor } from './registry-cache';
import { compileOutput, type OutputCheck } from './structured-output';
import type { ApproveHook, BudgetOptions, ContextOptions, RetryOptions, RunAgentOptions } from './types';

/** Default cut of each tool result, in characters. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Every accepted key of {@link RunAgentOptions}. Tied to the type both ways: a key that is not an option,
 * or an option missing here, is a compile error.
 */
export const RUN_OPTION_KEYS = [
  'model',
  'tools',
  'system',
  'prompt',
  'messages',
  'maxSteps',
  'maxToolCalls',
  'timeoutMs',
  'signal',
  'context',
  'onEvent',
  'onObserverError',
  'approve',
  'toolConcurrency',
  'retry',
  'output',
  'stream',
  'budget',
  'store',
  'runId',
  'sessionId',
] as const satisfies readonly (keyof RunAgentOptions)[];

type MissingRunOption = Exclude<keyof RunAgentOptions, (typeof RUN_OPTION_KEYS)[number]>;
const everyRunOptionListed: [MissingRunOption] extends [never] ? true : MissingRunOption = true;
void everyRunOptionListed;

/** Budget limits after validation (`Infinity` when not set). */
export interface ResolvedBudget {
  maxTokens: number;
  maxCostUsd: number;
}

/** Options after validation, with defaults applied. */
export interface ResolvedOptions {
  model: Model;
  registry: ToolRegistry;
  system: string | undefined;
  prompt: string | undefined;
  messages: Message[];
  maxSteps: number;
  maxToolCalls: number;
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  maxContextChars: number | undefined;
  maxToolResultChars: number;
  onEvent: EventObserver | readonly EventObserver[] | undefined;
  onObserverError: ((error: unknown, event: RunEvent) => void) | undefined;
  approve: ApproveHook | undefined;
  toolConcurrency: number;
  retry: Required<RetryOptions>;
  output: OutputCheck | undefined;
  stream: boolean;
  budget: ResolvedBudget | undefined;
  store: Store | undefined;
  runId: string | undefined;
  sessionId: string | undefined;
}

function resolveModel(model: unknown): Model {
  const candidate = model as Partial<Model> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.generate !== 'function')
    invalidOption('model', 'a Model with a generate(request) method', model);
  if (typeof candidate.id !== 'string') invalidOption('model.id', 'a string', candidate.id);
  return candidate as Model;
}

function resolveMessages(options: RunAgentOptions): { prompt: string | undefined; messages: Message[] } {
  const { prompt, messages } = options;
  if ((prompt === undefined) === (messages === undefined))
    throw new ConfigError(
      'Give exactly one of the options prompt (a new conversation) and messages (a transcript to continue).',
    );
  if (prompt !== undefined) {
    if (typeof prompt !== 'string' || prompt.length === 0) invalidOption('prompt', 'a non-empty string', prompt);
    return { prompt, messages: [{ role: 'user', content: prompt }] };
  }
  if (!Array.isArray(messages)) invalidOption('messages', 'an array of messages', messages);
  try {
    assertTranscript(messages);
  } catch (error) {
    throw new ConfigError(`Invalid option messages: ${(error as Error).message}`, { cause: error });
  }
  return { prompt: undefined, messages: [...messages] };
}

function resolveMaxToolCalls(value: unknown): number {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    invalidOption('maxToolCalls', 'an integer >= 0 (a safe integer) or Infinity', value);
  return value;
}

function resolveSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined;
  // The common case, cheaply; a signal from another realm passes the duck-typed check below.
  if (signal instanceof AbortSignal) return signal;
  const candidate = signal as AbortSignal | null;
  if (typeof candidate?.aborted !== 'boolean' || typeof candidate.addEventListener !== 'function')
    invalidOption('signal', 'an AbortSignal', signal);
  return candidate;
}

function resolveOnEvent(onEvent: unknown): ResolvedOptions['onEvent'] {
  if (onEvent === undefined || typeof onEvent === 'function') return onEvent as EventObserver | undefined;
  if (Array.isArray(onEvent) && onEvent.every((observer) => typeof observer === 'function')) return onEvent;
  return invalidOption('onEvent', 'a function or an array of functions', onEvent);
}

function resolveRetry(value: unknown): Required<RetryOptions> {
  const retry = objectOption<RetryOptions>('retry', value, ['maxRetries', 'baseDelayMs', 'maxDelayMs']) ?? {};
  const maxRetries = integerOption('retry.maxRetries', retry.maxRetries, 2, { min: 0, max: 100 });
  const baseDelayMs = numberOption('retry.baseDelayMs', retry.baseDelayMs, 500, 0, MAX_TIMER_MS);
  const maxDelayMs = numberOption(
    'retry.maxDelayMs',
    retry.maxDelayMs,
    Math.max(8_000, baseDelayMs),
    baseDelayMs,
    MAX_TIMER_MS,
  );
  return { maxRetries, baseDelayMs, maxDelayMs };
}

function resolveBudget(value: unknown): ResolvedBudget | undefined {
  const budget = objectOption<BudgetOptions>('budget', value, ['maxTokens', 'maxCostUsd']);
  if (!budget) return undefined;
  const limit = (name: 'maxTokens' | 'maxCostUsd') => {
    const given = budget[name];
    if (given === undefined) return Number.POSITIVE_INFINITY;
    if (typeof given !== 'number' || !(given > 0) || !Number.isFinite(given))
      invalidOption(`budget.${name}`, 'a finite number above 0', given);
    return given;
  };
  return { maxTokens: limit('maxTokens'), maxCostUsd: limit('maxCostUsd') };
}

const STORE_METHODS = ['appendEvents', 'readRun'] as const;

function resolveStore(value: unknown): Store | undefined {
  if (value === undefined) return undefined;
  const candidate = value as Record<string, unknown> | null;
  for (const method of STORE_METHODS)
    if (typeof candidate?.[method] !== 'function')
      invalidOption('store', `a Store (openStore() of @bridle/store) with an ${method}() method`, value);
  return value as Store;
}

/** A run id: what a store keys the journal by, so it must be a short, printable, non-empty string. */
export function resolveRunId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\w.:-]{1,128}$/.test(value))
    invalidOption('runId', 'a string of 1 to 128 letters, digits, "_", "-", ".", ":"', value);
  return value;
}

/** A session id, as stores accept it: a non-empty string of at most 256 characters without NUL. */
function resolveSessionId(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > 256 || value.includes('\u0000'))
    invalidOption('sessionId', 'a string of 1 to 256 characters (no NUL)', value);
  return value;
}

const NO_TOOLS = new ToolRegistry([]);

function resolveRegistry(tools: unknown): ToolRegistry {
  if (tools === undefined) return NO_TOOLS;
  if (!Array.isArray(tools)) invalidOption('tools', 'an array of tools', tools);
  tools.forEach((tool: unknown, index) => {
    if (typeof tool !== 'object' || tool === null || typeof (tool as Tool).execute !== 'function')
      invalidOption(`tools[${index}]`, 'a tool with an execute(args, context) function', tool);
  });
  // The registry checks names, duplicates and schemas, throwing ConfigError naming the tool.
  return registryFor(tools as Tool[]);
}

/**
 * Validates every option of `runAgent` and applies defaults. Throws `ConfigError`; never calls the model.
 * `keys` are the accepted keys; `resumeRun` passes its own and no `prompt`/`messages` (`resumed`).
 */
export function resolveOptions(
  options: RunAgentOptions,
  keys: readonly string[] = RUN_OPTION_KEYS,
  resumed = false,
): ResolvedOptions {
  if (typeof options !== 'object' || options === null) invalidOption('options', 'an options object', options);
  checkKeys('', options, keys);
  const context = objectOption<ContextOptions>('context', options.context, ['maxContextChars', 'maxToolResultChars']);
  if (options.system !== undefined && typeof options.system !== 'string')
    invalidOption('system', 'a string', options.system);
  if (options.stream !== undefined && typeof options.stream !== 'boolean')
    invalidOption('stream', 'a boolean', options.stream);
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS))
    invalidOption('timeoutMs', `a number of milliseconds above 0 and at most ${MAX_TIMER_MS}`, timeoutMs);
  return {
    model: resolveModel(options.model),
    registry: resolveRegistry(options.tools),
    system: options.system,
    ...(resumed ? { prompt: undefined, messages: [] } : resolveMessages(options)),
    maxSteps: integerOption('maxSteps', options.maxSteps, 10, { min: 1 }),
    maxToolCalls: resolveMaxToolCalls(options.maxToolCalls),
    timeoutMs,
    signal: resolveSignal(options.signal),
    maxContextChars:
      context?.maxContextChars === undefined
        ? undefined
        : integerOption('context.maxContextChars', context.maxContextChars, 0, { min: 1 }),
    maxToolResultChars: integerOption(
      'context.maxToolResultChars',
      context?.maxToolResultChars,
      DEFAULT_MAX_TOOL_RESULT_CHARS,
      { min: 1 },
    ),
    onEvent: resolveOnEvent(options.onEvent),
    onObserverError: functionOption('onObserverError', options.onObserverError),
    approve: functionOption('approve', options.approve),
    toolConcurrency: integerOption('toolConcurrency', options.toolConcurrency, 4, { min: 1 }),
    retry: resolveRetry(options.retry),
    output: options.output === undefined ? undefined : compileOutput(options.output),
    stream: options.stream ?? false,
    budget: resolveBudget(options.budget),
    store: resolveStore(options.store),
    runId: resolveRunId(options.runId),
    sessionId: resolveSessionId(options.sessionId),
  };
}
