import type { AgentStatus, RunAgentOptions } from '@bridle/core';
import type { Message, Usage } from '@bridle/protocol';

/**
 * One unit of work for the default runner (`runAgent`): a new `prompt` or a `messages` transcript to
 * continue (exactly one), with optional per-item overrides. Other keys are kept by the caller and ignored here.
 */
export interface BatchItem {
  /** Stable identifier reported in the result; default the item's index as a string. */
  id?: string;
  prompt?: string;
  messages?: Message[];
  /** Replaces the shared system prompt for this item. */
  system?: string;
  maxSteps?: number;
  maxToolCalls?: number;
  /** Whole-run deadline of each attempt, in milliseconds. */
  timeoutMs?: number;
}

/**
 * How an item ended. The agent statuses, plus `error` when the run function threw (for example an
 * invalid item). Items that never started because the batch was aborted end as `aborted`.
 */
export type BatchStatus = AgentStatus | 'error';

/** What one attempt of a run function returns. An `AgentResult` satisfies it. */
export interface BatchRunOutcome {
  status: BatchStatus;
  answer?: string;
  error?: string;
  output?: unknown;
  steps?: number;
  toolCalls?: number;
  usage?: Usage;
  runId?: string;
}

/**
 * A run event as the batch runner sees it (any `RunEvent` of `@bridle/events` fits): only `type` and, for
 * `tool_start`, the tool `name` matter here; observers receive the whole event object.
 */
export interface BatchRunEvent {
  readonly type: string;
  readonly name?: string;
}

/** Handed to each attempt of a run function. */
export interface BatchRunContext {
  /** Aborted when the batch is aborted; pass it on to the run. */
  signal: AbortSignal;
  /** 1-based attempt number of this item. */
  attempt: number;
  /** 0-based position of the item in the input. */
  index: number;
  /** The item's id (see {@link BatchItem.id}). */
  id: string;
  /**
   * Report every run event here. A `tool_start` of a tool not known to be read-only marks the item as
   * having side effects, which turns retries off for it.
   */
  onEvent(event: BatchRunEvent): void;
}

/** Runs one attempt of one item. May throw; a throw ends the attempt with status `error`. */
export type BatchRunFunction<I> = (item: I, context: BatchRunContext) => Promise<BatchRunOutcome>;

/** The result of one item, handed over as soon as it finishes and returned in input order. */
export interface BatchResult {
  /** 0-based position in the input. */
  index: number;
  id: string;
  status: BatchStatus;
  answer?: string;
  /** Why the item did not complete (the last attempt's error). */
  error?: string;
  /** The validated structured answer, when the run produced one. */
  output?: unknown;
  /** How many times the run function was called (0 when the batch was aborted before the item started). */
  attempts: number;
  /** Of the last attempt. */
  steps: number;
  /** Of the last attempt. */
  toolCalls: number;
  /** Summed over all attempts. */
  usage: Usage;
  /** Of the last attempt, when the run reported one. */
  runId?: string;
  /** Wall time from the first attempt's start to the end, in milliseconds (0 when never started). */
  durationMs: number;
}

/** A snapshot of the batch, passed to `onProgress` whenever it changes. */
export interface BatchProgress {
  total: number;
  /** Finished items, whatever their status. */
  done: number;
  /** Finished items whose status is `completed`. */
  succeeded: number;
  /** Finished items whose status is anything else but `aborted`. */
  failed: number;
  /** Items the batch's abort ended (cancelled mid-run, or never started): not failures, run them again. */
  aborted: number;
  /** Items with an attempt in flight or waiting for a retry. */
  running: number;
  /** Items not started yet. */
  pending: number;
  /** Retries started so far (attempts beyond the first). */
  retries: number;
}

/** Retry policy for failed items. Delays grow as `baseDelayMs * 2^(retry-1)`, capped, with jitter. */
export interface BatchRetryOptions {
  /** Retries per item after the first attempt; default 2. Non-negative integer. */
  maxRetries?: number;
  /** Default 1000 ms. */
  baseDelayMs?: number;
  /** Default 30000 ms. */
  maxDelayMs?: number;
}

/** The `runAgent` options shared by every item of a batch when the default runner is used. */
export type BatchAgentOptions = Omit<RunAgentOptions, 'prompt' | 'messages' | 'signal'>;

/** Options of `runBatch` and `streamBatch`. Either `agent` (default runner) or `run` is required. */
export interface RunBatchOptions<I = BatchItem> {
  /** Options passed to `runAgent` for every item (model, tools, system, limits, ...). */
  agent?: BatchAgentOptions;
  /** A custom run function; replaces the default `runAgent` runner. */
  run?: BatchRunFunction<I>;
  /** Items run at once; default 4. Positive integer. */
  concurrency?: number;
  retry?: BatchRetryOptions;
  /**
   * Names of tools whose use still allows a retry. Default: the tools of `agent.tools` marked `readOnly`
   * (none with a custom `run`).
   */
  readOnlyTools?: readonly string[];
  /** Aborts the batch: unstarted items end as `aborted`, running ones are aborted through their signal. */
  signal?: AbortSignal;
  /** Called once per item as soon as it finishes (completion order). */
  onResult?: (result: BatchResult) => void;
  /** Called with a fresh snapshot whenever an item starts, retries or finishes. */
  onProgress?: (progress: BatchProgress) => void;
  /** Every run event of every attempt, with the item it belongs to. */
  onEvent?: (event: BatchRunEvent, item: { index: number; id: string; attempt: number }) => void;
  /** Hears about an `onResult` / `onProgress` / `onEvent` callback that threw; the batch goes on regardless. */
  onObserverError?: (error: unknown) => void;
  /** Source of jitter in [0, 1); default `Math.random`. */
  random?: () => number;
}
