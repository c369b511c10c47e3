import type { EventObserver, RunEvent } from '@bridle/events';
import type {
  FinishReason,
  JsonSchema,
  Message,
  Model,
  RunState,
  Store,
  Tool,
  ToolCall,
  Usage,
} from '@bridle/protocol';
import type { StandardSchemaV1 } from '@bridle/registry';

/** How a run ended. */
export type AgentStatus =
  /** The model gave a final answer (and, with `output`, it parsed and validated). */
  | 'completed'
  /** `maxSteps` model calls were made without a final answer. */
  | 'step_limit'
  /** The model asked for a batch of tool calls larger than the remaining `maxToolCalls` budget. */
  | 'tool_limit'
  /** `timeoutMs` passed. */
  | 'timeout'
  /** The caller's `signal` aborted. */
  | 'aborted'
  /** The model failed (after retries) or returned an invalid response. */
  | 'model_error'
  /** Even the newest required part of the conversation does not fit `context.maxContextChars`. */
  | 'context_limit'
  /** `approve` answered `'ask'` for a call: the run paused before that batch; continue it with `resumeRun`. */
  | 'awaiting_approval'
  /** The run's summed usage reached `budget.maxTokens` or `budget.maxCostUsd` before a model call. */
  | 'budget_limit';

/** A tool call waiting for a person's decision (status `awaiting_approval`). */
export interface PendingApproval {
  /** The call id: the key of its decision in `resumeRun`'s `approvals`. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** The arguments the model gave, as recorded: the call runs with exactly these. */
  arguments: unknown;
  /** The sub-agent's run id, when the call belongs to a sub-agent (`agentTool`) of this run. */
  runId?: string;
}

/** What a run produced. `runAgent` always resolves with one once the run has started. */
export interface AgentResult<Output = unknown> {
  status: AgentStatus;
  /** The final answer text; set when `status` is `completed`. */
  answer?: string;
  /** The whole transcript (input and everything the run appended); always passes `assertTranscript`. */
  messages: Message[];
  /** Model calls that returned a response (failed attempts that were retried do not count). */
  steps: number;
  /** Tool calls in admitted batches. */
  toolCalls: number;
  runId: string;
  /** Summed over all model calls of the run. */
  usage: Usage;
  /** Why the run did not complete (model error message, cancellation, limit), when it did not. */
  error?: string;
  /**
   * The id of the model that gave the run's last response, when the response named it: `fallback()` of
   * @bridle/models does (the model of the list that answered). Absent otherwise (the run's `model.id` answered).
   */
  model?: string;
  /**
   * Why the model stopped on the run's last response (mapped by the adapter; see SPEC "finishReason mapping"),
   * when the provider said. `length` with status `completed` means the output token limit cut the final answer:
   * `answer` is incomplete (raise the adapter's output limit, or ask for less). Tool calls cut by the limit never
   * reach the loop: the adapter reports them as a `model_error`.
   */
  finishReason?: FinishReason;
  /** The parsed and validated structured answer, when `output` was given and the run completed. */
  output?: Output;
  /** Status `awaiting_approval`: every call of the paused batch that needs a decision. */
  pendingApprovals?: PendingApproval[];
  /** Status `awaiting_approval`: what `resumeRun` needs to continue the run (JSON; keep it as it is). */
  state?: RunState;
}

/** Context budget options, in characters. */
export interface ContextOptions {
  /** Before every model call, keep the first user message plus the newest message groups that fit
   *  (length of their JSON). Default: no limit. */
  maxContextChars?: number;
  /** Each tool result is cut to this many characters (head and tail kept). Default 100,000. */
  maxToolResultChars?: number;
}

/**
 * Retries of retryable `ProviderError`s, with exponential backoff and jitter: before retry `n` (from 1), a random
 * wait between half and all of `min(maxDelayMs, baseDelayMs * 2^(n-1))`, never less than `retryAfterMs`.
 */
export interface RetryOptions {
  /** Retries after the first attempt of one step; default 2, at most 100. */
  maxRetries?: number;
  /** The first backoff step in ms (doubles each retry); default 500. */
  baseDelayMs?: number;
  /** The largest backoff step in ms; default 8,000. A provider's `retryAfterMs` may exceed it. */
  maxDelayMs?: number;
}

/**
 * Decides whether a `requiresApproval` tool call may run. Resolve `true` to allow, `'ask'` to pause the
 * run (status `awaiting_approval`) until a person decides through `resumeRun`; anything else, or a
 * throw, denies it.
 */
export type ApproveHook = (call: ToolCall, tool: Tool) => boolean | 'ask' | Promise<boolean | 'ask'>;

/** Limits on what a run may spend; checked before each model call, so a run passes them by at most one step. */
export interface BudgetOptions {
  /** Most tokens (input plus output, summed over the run's model calls); a positive number. */
  maxTokens?: number;
  /** Most US dollars (the summed `usage.costUsd` of the run's model calls, counted where the model reports it). */
  maxCostUsd?: number;
}

/** A person's decision on a pending call: `true` runs it, `false` (or `{ approved: false, reason }`) denies it. */
export type ApprovalDecision = boolean | { approved: false; reason?: string };

/** A structured output schema: a JSON Schema object, or a Standard Schema such as a zod 4 schema. */
export type OutputSchema<Output = unknown> = JsonSchema | StandardSchemaV1<unknown, Output>;

/** Options shared by `runAgent` and the `Agent` class. */
export interface AgentLimits<Output = unknown> {
  /** Most model calls of one run; a positive safe integer. Default 10. */
  maxSteps?: number;
  /** Most tool calls of one run; a non-negative safe integer or `Infinity` (default). */
  maxToolCalls?: number;
  /** Whole-run deadline in ms (positive, at most 2,147,483,647). Default: none. */
  timeoutMs?: number;
  context?: ContextOptions;
  /** Observers of the run's events; a throwing observer never changes the run. */
  onEvent?: EventObserver | readonly EventObserver[];
  /** Hears about observers that threw. */
  onObserverError?: (error: unknown, event: RunEvent) => void;
  /** Asked before every call of a `requiresApproval` tool; without it such calls are denied. */
  approve?: ApproveHook;
  /** Most read-only tools of one batch running at once; a positive safe integer. Default 4. */
  toolConcurrency?: number;
  retry?: RetryOptions;
  /** Structured final answer: it must be JSON valid against this schema; `result.output` holds the value. */
  output?: OutputSchema<Output>;
  /** Use `model.stream` when the model has it, emitting `text_delta` events. Default false. */
  stream?: boolean;
  /** Stop with status `budget_limit` once the run has used this many tokens or dollars. */
  budget?: BudgetOptions;
  /**
   * Journal every event of the run here (any object of the `Store` shape, e.g. `openStore()` of
   * @bridle/store): model responses and tool results are durable before the run goes on, so
   * `resumeRun({ store, runId })` can continue the run after a crash.
   */
  store?: Store;
}

/** Options of {@link runAgent}. Exactly one of `prompt` and `messages`. */
export interface RunAgentOptions<Output = unknown> extends AgentLimits<Output> {
  model: Model;
  tools?: readonly Tool[];
  /** The system prompt (sent as `ModelRequest.system`, never as a message). */
  system?: string;
  /** Starts a new conversation with this user message. */
  prompt?: string;
  /** Continues this transcript (it must pass `assertTranscript`); it is copied, never mutated. */
  messages?: readonly Message[];
  /** Cancels the run: it resolves with status `aborted`. */
  signal?: AbortSignal;
  /** The run's id (default: a random UUID). With a `store`, it must not be in the store yet. */
  runId?: string;
  /**
   * The session (conversation) the run belongs to: its `run_start` event carries it, so a store lists the
   * run under it (`listRuns({ sessionId })`). 1 to 256 characters. Default: none.
   */
  sessionId?: string;
}

/**
 * Options of `resumeRun`: the run's model, tools, system prompt and limits (give the same ones as the
 * first time), and where the run is: `store` with `runId` (or `state`), or `state` alone.
 */
export interface ResumeRunOptions<Output = unknown> extends AgentLimits<Output> {
  model: Model;
  tools?: readonly Tool[];
  system?: string;
  signal?: AbortSignal;
  /** The run's id in `store`; defaults to `state.runId`. */
  runId?: string;
  /** `result.state` of the paused run. With a store it must match the journal. */
  state?: RunState;
  /** Decisions on the pending calls, by call id (`result.pendingApprovals`); a call left out stays pending. */
  approvals?: Record<string, ApprovalDecision>;
}
