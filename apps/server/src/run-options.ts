import type { ManifestDetails, RunAgentOptions } from '@bridle/core';
import type { EventObserver } from '@bridle/events';
import { ConfigError, type Message, type Model, type Store, type Tool } from '@bridle/protocol';
import type { ServerAgentOptions } from './server-options';

/** Every key of {@link ServerAgentOptions}; tied to the type both ways, so a new option is a compile error here. */
const AGENT_OPTION_KEYS = [
  'maxSteps',
  'maxToolCalls',
  'context',
  'onEvent',
  'onObserverError',
  'approve',
  'toolConcurrency',
  'retry',
  'budget',
  'decisionKey',
  'ownership',
  'store',
  'channels',
  'runId',
  'sessionId',
  'approvalTimeoutMs',
] as const satisfies readonly (keyof ServerAgentOptions)[];
type MissingAgentOption = Exclude<keyof ServerAgentOptions, (typeof AGENT_OPTION_KEYS)[number]>;
const everyAgentOptionListed: [MissingAgentOption] extends [never] ? true : MissingAgentOption = true;
void everyAgentOptionListed;

/** Throws `ConfigError` for a key of `createServer`'s `agent` that is not a run option (at startup, not per run). */
export function checkAgentOptions(agent: object | undefined): void {
  if (agent === undefined) return;
  if (typeof agent !== 'object' || agent === null || Array.isArray(agent)) {
    throw new ConfigError(`Invalid option agent: expected an object of run options, got ${typeof agent}.`);
  }
  const known: readonly string[] = AGENT_OPTION_KEYS;
  for (const key of Object.keys(agent)) {
    if (!known.includes(key))
      throw new ConfigError(`Unknown option agent.${key}. Accepted: ${AGENT_OPTION_KEYS.join(', ')}.`);
  }
}

/** What a route decides for one run; the rest comes from the server's `agent` options. */
export interface RouteRun {
  model: Model;
  tools: readonly Tool[];
  system: string | undefined;
  /** The conversation so far, or a `prompt` that starts one. */
  messages?: Message[];
  prompt?: string;
  /** The route's limit (a request's `maxSteps`); default the server's `agent.maxSteps`. */
  maxSteps?: number | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  stream: boolean;
  store: Store;
  /** Undefined for a new run: `runAgent` makes its id (and need not look it up in the store). */
  runId: string | undefined;
  /** Every observer of the run (the journal's `observers()` include `agent.onEvent`). */
  onEvent: EventObserver[];
  /** The run's approval hook: the routes choose (the chat routes let the server's `agent.approve` win). */
  approve: RunAgentOptions['approve'];
  /** The run's budget with its tenant's gate (the journal's `budget()`); default the server's `agent.budget`. */
  budget?: RunAgentOptions['budget'];
  /** Default the server's `agent.sessionId`. */
  sessionId?: string | undefined;
  /** What the run's manifest records beside its tools and limits (the skill, the workspace folder). */
  manifest?: ManifestDetails | undefined;
}

/**
 * The `runAgent` options of a server run: the route's choices over the server's `agent` options. Every
 * option is written in one object literal of one shape (no spreads): building it per request costs
 * nanoseconds, where spreading `agent` and adding the route's keys cost microseconds on Node 20.
 */
export function serverRunOptions(agent: ServerAgentOptions, run: RouteRun): RunAgentOptions {
  const options = {
    model: run.model,
    tools: run.tools,
    system: run.system,
    prompt: run.prompt,
    messages: run.messages,
    maxSteps: run.maxSteps ?? agent.maxSteps,
    maxToolCalls: agent.maxToolCalls,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    context: agent.context,
    onEvent: run.onEvent,
    onObserverError: agent.onObserverError,
    approve: run.approve,
    toolConcurrency: agent.toolConcurrency,
    retry: agent.retry,
    output: undefined,
    stream: run.stream,
    budget: run.budget ?? agent.budget,
    store: run.store,
    channels: agent.channels,
    runId: run.runId,
    sessionId: run.sessionId ?? agent.sessionId,
    decisionKey: agent.decisionKey,
    ownership: agent.ownership,
    approvalTimeoutMs: agent.approvalTimeoutMs,
    manifest: run.manifest,
  } satisfies { [Key in keyof Required<RunAgentOptions>]: RunAgentOptions[Key] };
  return options;
}
