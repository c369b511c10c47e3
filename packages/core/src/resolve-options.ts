import type { EventObserver, RunEvent } from '@bridle/events';
import {
  assertTranscript,
  ConfigError,
  isJsonValue,
  type Message,
  type Model,
  type RunSignalChannel,
  type Store,
  type Tool,
} from '@bridle/protocol';
import { integerOption } from '@bridle/protocol/internal';
import { ToolRegistry } from '@bridle/registry';
import { resolveDecisionKey } from './decision-key';
import { checkKeys, functionOption, invalidOption, numberOption, objectOption } from './option-checks';
import { registryFor } from './registry-cache';
import { compileOutput, type OutputCheck } from './structured-output';
import type {
  ApproveHook,
  BudgetGate,
  BudgetOptions,
  ContextOptions,
  ManifestDetails,
  OwnershipOptions,
  RetryOptions,
  RunAgentOptions,
} from './types';

/** Default cut of each tool result, in characters. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;
const MAX_TIMER_MS = 2_147_483_647;
const AT_LEAST_ONE = { min: 1 } as const;

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
  'channels',
  'runId',
  'sessionId',
  'decisionKey',
  'ownership',
  'approvalTimeoutMs',
  'manifest',
] as const satisfies readonly (keyof RunAgentOptions)[];

/** {@link RUN_OPTION_KEYS} as a Set: `runAgent` checks every option key against it at each run. */
const RUN_OPTION_KEY_SET: ReadonlySet<string> = new Set(RUN_OPTION_KEYS);

type MissingRunOption = Exclude<keyof RunAgentOptions, (typeof RUN_OPTION_KEYS)[number]>;
const everyRunOptionListed: [MissingRunOption] extends [never] ? true : MissingRunOption = true;
void everyRunOptionListed;

/** Budget limits after validation (`Infinity` when not set). */
export interface ResolvedBudget {
  maxTokens: number;
  maxCostUsd: number;
  gate?: BudgetGate;
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
  /** The run's signal channels: `channels`, then the store when it can carry signals. */
  channels: readonly RunSignalChannel[];
  runId: string | undefined;
  sessionId: string | undefined;
  /** Signs and verifies the decisions the run keeps (see `decisionKey`). */
  decisionKey: Uint8Array;
  ownership: OwnershipOptions | undefined;
  approvalTimeoutMs: number | undefined;
  manifest: ManifestDetails | undefined;
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
  const budget = objectOption<BudgetOptions>('budget', value, ['maxTokens', 'maxCostUsd', 'gate']);
  if (!budget) return undefined;
  const limit = (name: 'maxTokens' | 'maxCostUsd') => {
    const given = budget[name];
    if (given === undefined) return Number.POSITIVE_INFINITY;
    if (typeof given !== 'number' || !(given > 0) || !Number.isFinite(given))
      invalidOption(`budget.${name}`, 'a finite number above 0', given);
    return given;
  };
  const gate = budget.gate;
  if (gate !== undefined && typeof (gate as { reserve?: unknown } | null)?.reserve !== 'function')
    invalidOption('budget.gate', 'an object with a reserve(request) method', gate);
  return {
    maxTokens: limit('maxTokens'),
    maxCostUsd: limit('maxCostUsd'),
    ...(gate === undefined ? {} : { gate }),
  };
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

function resolveChannels(value: unknown, store: Store | undefined): readonly RunSignalChannel[] {
  const given: RunSignalChannel[] = [];
  if (value !== undefined) {
    if (!Array.isArray(value)) invalidOption('channels', 'an array of signal channels', value);
    value.forEach((channel: unknown, index) => {
      const candidate = channel as Partial<RunSignalChannel> | null;
      if (typeof candidate?.listenRunSignals !== 'function' || typeof candidate.sendRunSignal !== 'function')
        invalidOption(`channels[${index}]`, 'a channel with sendRunSignal() and listenRunSignals()', channel);
      given.push(channel as RunSignalChannel);
    });
  }
  if (typeof store?.listenRunSignals === 'function' && typeof store.sendRunSignal === 'function')
    given.push(store as RunSignalChannel);
  return given;
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

function resolveTimeout(name: string, value: unknown): number | undefined {
  if (value !== undefined && (typeof value !== 'number' || !(value > 0) || value > MAX_TIMER_MS))
    invalidOption(name, `a number of milliseconds above 0 and at most ${MAX_TIMER_MS}`, value);
  return value;
}

function resolveManifestDetails(value: unknown): ManifestDetails | undefined {
  const details = objectOption<ManifestDetails>('manifest', value, [
    'skills',
    'workspace',
    'presets',
    'presetsSignature',
    'mcpServers',
  ]);
  if (!details) return undefined;
  const strings = (name: 'skills' | 'mcpServers') => {
    const list = details[name];
    if (list !== undefined && (!Array.isArray(list) || !list.every((item) => typeof item === 'string')))
      invalidOption(`manifest.${name}`, 'an array of strings', list);
  };
  strings('skills');
  strings('mcpServers');
  if (details.workspace !== undefined && typeof details.workspace !== 'string')
    invalidOption('manifest.workspace', 'a folder path', details.workspace);
  const { presets, presetsSignature } = details;
  if (presetsSignature !== undefined && (typeof presetsSignature !== 'string' || presetsSignature.length > 200))
    invalidOption('manifest.presetsSignature', 'a string of at most 200 characters', presetsSignature);
  if (
    presets !== undefined &&
    (!Array.isArray(presets) ||
      !presets.every((preset) => typeof preset?.name === 'string' && isJsonValue(preset.definition)))
  )
    invalidOption('manifest.presets', 'an array of { name, definition } with JSON definitions', presets);
  return JSON.parse(JSON.stringify(details)) as ManifestDetails;
}

function checkToolDeadlines(tools: readonly Tool[]): void {
  tools.forEach((tool, index) => {
    resolveTimeout(`tools[${index}].approvalTimeoutMs (${tool.name})`, tool.approvalTimeoutMs);
    if (tool.autoApproveOnTimeout !== undefined && typeof tool.autoApproveOnTimeout !== 'boolean')
      invalidOption(`tools[${index}].autoApproveOnTimeout (${tool.name})`, 'a boolean', tool.autoApproveOnTimeout);
  });
}

const NO_TOOLS = new ToolRegistry([]);

function resolveRegistry(tools: unknown): ToolRegistry {
  if (tools === undefined) return NO_TOOLS;
  if (!Array.isArray(tools)) invalidOption('tools', 'an array of tools', tools);
  tools.forEach((tool: unknown, index) => {
    if (typeof tool !== 'object' || tool === null || typeof (tool as Tool).execute !== 'function')
      invalidOption(`tools[${index}]`, 'a tool with an execute(args, context) function', tool);
  });
  checkToolDeadlines(tools as Tool[]);
  // The registry checks names, duplicates and schemas, throwing ConfigError naming the tool.
  return registryFor(tools as Tool[]);
}

/**
 * Validates every option of `runAgent` and applies defaults. Throws `ConfigError`; never calls the model.
 * `keys` are the accepted keys; `resumeRun` passes its own and no `prompt`/`messages` (`resumed`).
 */
export function resolveOptions(
  options: RunAgentOptions,
  keys: readonly string[] | ReadonlySet<string> = RUN_OPTION_KEY_SET,
  resumed = false,
): ResolvedOptions {
  if (typeof options !== 'object' || options === null) invalidOption('options', 'an options object', options);
  checkKeys('', options, keys);
  const context = objectOption<ContextOptions>('context', options.context, ['maxContextChars', 'maxToolResultChars']);
  if (options.system !== undefined && typeof options.system !== 'string')
    invalidOption('system', 'a string', options.system);
  if (options.stream !== undefined && typeof options.stream !== 'boolean')
    invalidOption('stream', 'a boolean', options.stream);
  const timeoutMs = resolveTimeout('timeoutMs', options.timeoutMs);
  const { prompt, messages } = resumed ? { prompt: undefined, messages: [] } : resolveMessages(options);
  // Every field written in one literal, without a spread: one object shape, made at once (a spread in the
  // middle of a literal this size builds it field by field, a measurable part of a one-step run).
  return {
    model: resolveModel(options.model),
    registry: resolveRegistry(options.tools),
    system: options.system,
    prompt,
    messages,
    maxSteps: integerOption('maxSteps', options.maxSteps, 10, AT_LEAST_ONE),
    maxToolCalls: resolveMaxToolCalls(options.maxToolCalls),
    timeoutMs,
    signal: resolveSignal(options.signal),
    maxContextChars:
      context?.maxContextChars === undefined
        ? undefined
        : integerOption('context.maxContextChars', context.maxContextChars, 0, AT_LEAST_ONE),
    maxToolResultChars: integerOption(
      'context.maxToolResultChars',
      context?.maxToolResultChars,
      DEFAULT_MAX_TOOL_RESULT_CHARS,
      AT_LEAST_ONE,
    ),
    onEvent: resolveOnEvent(options.onEvent),
    onObserverError: functionOption('onObserverError', options.onObserverError),
    approve: functionOption('approve', options.approve),
    toolConcurrency: integerOption('toolConcurrency', options.toolConcurrency, 4, AT_LEAST_ONE),
    retry: resolveRetry(options.retry),
    output: options.output === undefined ? undefined : compileOutput(options.output),
    stream: options.stream ?? false,
    budget: resolveBudget(options.budget),
    store: resolveStore(options.store),
    channels: resolveChannels(options.channels, options.store),
    runId: resolveRunId(options.runId),
    sessionId: resolveSessionId(options.sessionId),
    decisionKey: resolveDecisionKey(options.decisionKey),
    ownership: resolveOwnership(options.ownership),
    approvalTimeoutMs: resolveTimeout('approvalTimeoutMs', options.approvalTimeoutMs),
    manifest: resolveManifestDetails(options.manifest),
  };
}

function resolveOwnership(value: unknown): OwnershipOptions | undefined {
  const ownership = objectOption<OwnershipOptions>('ownership', value, ['owner', 'leaseMs', 'lease']);
  if (ownership === undefined) return undefined;
  const { owner, leaseMs, lease } = ownership;
  if (owner !== undefined && (typeof owner !== 'string' || owner.length === 0 || owner.length > 256))
    invalidOption('ownership.owner', 'a string of 1 to 256 characters', owner);
  if (leaseMs !== undefined) integerOption('ownership.leaseMs', leaseMs, 0, { min: 1, max: 86_400_000 });
  if (
    lease !== undefined &&
    (typeof lease !== 'object' ||
      lease === null ||
      typeof lease.runId !== 'string' ||
      !Number.isSafeInteger(lease.token))
  )
    invalidOption('ownership.lease', 'a RunLease ({ runId, owner, token, leaseUntil }) the store gave', lease);
  return ownership;
}
