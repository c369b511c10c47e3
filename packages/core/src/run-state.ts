import { createHash } from 'node:crypto';
import {
  assertTranscript,
  ConfigError,
  describeValue,
  type JsonValue,
  type Message,
  type RunState,
  type ToolCall,
  type Usage,
} from '@bridle/protocol';
import { canonicalJson } from '@bridle/protocol/internal';
import type { Decision } from './loop-state';

/** The state format this version of @bridle/core writes and reads. */
export const STATE_VERSION = 1;

/** What a paused run's `state` holds (besides `digest`). */
export interface StateContent {
  version: number;
  runId: string;
  /** The `sequence` the resumed segment's first event gets. */
  nextSequence: number;
  steps: number;
  toolCalls: number;
  usage: Usage;
  outputProblem?: string;
  /** True when the run journals to a store: then the transcript is in the journal, not here. */
  journaled: boolean;
  /** The transcript up to the paused batch (without a store). */
  messages?: Message[];
  /** The paused batch. */
  batch: {
    step: number;
    content: string;
    providerData?: JsonValue;
    calls: ToolCall[];
    /** Decisions made before the pause: `true` or the call's `Denied: ...` text. */
    decisions: Record<string, Decision>;
    /** Calls waiting for a person. */
    asked: string[];
    /** When the wait ends (ISO 8601), by call id, for calls waiting under a deadline. */
    deadlines?: Record<string, string>;
    /** Sub-agents that paused while the batch ran, by call id (their pending calls are the run's). */
    subAgents?: Record<string, JsonValue>;
    /** Results of the calls that ran before a sub-agent paused (without a store; a journal has them). */
    results?: Record<string, { content: string; isError: boolean }>;
    /** `signDecisions` of `decisions` with the run's `decisionKey`: decisions that do not verify are asked again. */
    decisionsSignature?: string;
  };
}

function digestOf(content: object): string {
  return `sha256:${createHash('sha256').update(canonicalJson(content)).digest('hex')}`;
}

/** A `RunState`: the content plus a digest over all of it. */
export function makeState(content: StateContent): RunState {
  return { ...JSON.parse(JSON.stringify(content)), digest: digestOf(content) } as RunState;
}

function refuse(problem: string): never {
  throw new ConfigError(
    `Invalid option state: ${problem}. Pass result.state (or the store's state) exactly as the paused run returned it.`,
  );
}

/**
 * Checks a `state` given to `resumeRun`: a plain object of a version this core reads, whose digest
 * matches its content, with the fields a paused run writes. Throws `ConfigError`.
 */
export function readState(value: unknown): StateContent {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse(`expected the state object of a paused run, got ${describeValue(value)}`);
  const { digest, ...content } = value as Record<string, unknown>;
  const version = content.version;
  if (typeof version !== 'number' || !Number.isInteger(version)) refuse('it has no version');
  if (version > STATE_VERSION)
    throw new ConfigError(
      `Invalid option state: it has format version ${version}, newer than this @bridle/core reads (${STATE_VERSION}). Upgrade @bridle/core to resume this run.`,
    );
  if (typeof digest !== 'string' || digest !== digestOf(content))
    refuse('its digest does not match its content (it was changed after the run paused)');
  const state = content as unknown as StateContent;
  const batch = state.batch as Partial<StateContent['batch']> | undefined;
  if (
    typeof state.runId !== 'string' ||
    !Number.isSafeInteger(state.nextSequence) ||
    !Number.isSafeInteger(state.steps) ||
    !Number.isSafeInteger(state.toolCalls) ||
    typeof state.usage?.inputTokens !== 'number' ||
    typeof batch !== 'object' ||
    !Array.isArray(batch.calls) ||
    typeof batch.decisions !== 'object' ||
    !Array.isArray(batch.asked)
  )
    refuse('it lacks fields a paused run writes');
  if (!state.journaled) {
    try {
      assertTranscript(state.messages as Message[]);
    } catch (error) {
      refuse(`its messages are not a valid transcript (${(error as Error).message})`);
    }
  }
  return state;
}
