/** A tool call proposed by the model, as the adapter read it from the provider's response. */
export interface ToolCall {
  /**
   * The provider's id for the call (set by the adapter; core never changes it). Non-empty, unique within one
   * response; the matching tool message answers it with the same `callId`.
   */
  id: string;
  /** The tool the model asks for (set by the model; core answers `Unknown tool: ...` when there is none). */
  name: string;
  /**
   * The arguments, parsed from the provider's JSON text by the adapter; the raw string when it was not valid
   * JSON (so the registry rejects it and the model is told), `{}` when the model sent none. Validated by the
   * registry before `execute` sees them; must be a JSON value (`validateModelResponse` checks).
   */
  arguments: unknown;
}

/** A user turn: the prompt (set by the caller: `runAgent({ prompt })`, `agent.run(input)`), or a retry hint core adds. */
export interface UserMessage {
  role: 'user';
  /** The text, as given (no length limit here; `context.maxContextChars` bounds what is sent). */
  content: string;
}

/** A model turn: text, and optionally one batch of tool calls. Core appends it from a {@link ModelResponse}. */
export interface AssistantMessage {
  role: 'assistant';
  /** The model's text for this turn (`ModelResponse.content`; may be empty when it only calls tools). */
  content: string;
  /**
   * The tool calls of this turn (a private copy of `ModelResponse.toolCalls`, so a tool that mutates its
   * arguments cannot change the transcript), answered by the tool messages that follow directly. Absent for a
   * final answer.
   */
  toolCalls?: ToolCall[];
  /**
   * Opaque provider data copied from the {@link ModelResponse} that produced this turn (thinking blocks,
   * reasoning items). Sent back only to the provider that made it; other adapters ignore it.
   */
  providerData?: JsonValue;
}

/** The result of one tool call, answering the call with the same `callId`. Core makes it; tools never do. */
export interface ToolMessage {
  role: 'tool';
  /** The `ToolCall.id` this message answers. */
  callId: string;
  /** The `ToolCall.name` (kept even for an unknown tool, so the transcript reads on its own). */
  name: string;
  /**
   * What the model reads: a string result verbatim, anything else as JSON (`undefined` as `null`), or the
   * error text (`Unknown tool: x`, `Invalid arguments: ...`, the thrown message, `Denied: ...`). Bounded by
   * core to `context.maxToolResultChars` characters (UTF-16 code units) with head and tail kept.
   */
  content: string;
  /** True when the call failed or was refused (core sets it); the model may recover. */
  isError: boolean;
}

/** One entry of a transcript. The system prompt is never a message: see {@link ModelRequest.system}. */
export type Message = UserMessage | AssistantMessage | ToolMessage;

/** A JSON Schema document (draft 2020-12). */
export type JsonSchema = Record<string, unknown>;

/** What the model sees of a tool. */
export interface ToolDefinition {
  /** Matches `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

/** Passed to every tool execution. */
export interface ToolContext {
  /**
   * Aborted when the run is cancelled or times out: stop work and reject promptly. Made on first read (an
   * accessor, like `ModelRequest.signal`): a copy of the context passes it on by name.
   */
  signal: AbortSignal;
  /** The id of the tool call being executed (the model's id). */
  callId: string;
  /** The run the call belongs to. */
  runId: string;
  /**
   * `${runId}:${callId}`: stable across a crash and resume, so a tool with outside effects can pass it to
   * the system it changes (as an idempotency key) and not do the same thing twice.
   */
  idempotencyKey: string;
  /**
   * Counts usage this call spent outside the run (a remote agent's model calls, say) as the run's own: budgets
   * see it before the next model call, and the call's `tool_end` carries it. Set by `@bridle/core`'s loop;
   * absent where a tool runs without one (call it as `context.addUsage?.(usage)`).
   */
  addUsage?(usage: Usage): void;
}

/** A tool the harness can execute. Plain objects work: no base class needed. */
export interface Tool<A = unknown, R = unknown> extends ToolDefinition {
  /** Receives validated arguments. Throw an `Error` to refuse or fail: the message reaches the model. */
  execute(args: A, context: ToolContext): R | Promise<R>;
  /** No side effects: may run concurrently with other read-only calls, and is safe to retry. */
  readOnly?: boolean;
  /** The loop asks its `approve` hook before executing; without a hook the call is denied. */
  requiresApproval?: boolean;
  /**
   * Safe to run again after a crash interrupted it (`readOnly` implies it). A resumed run re-executes an
   * interrupted call only for such tools; the others get an `Interrupted: ...` error result.
   */
  idempotent?: boolean;
  /**
   * With `requiresApproval`: how long a person has to decide a call of this tool, in ms (overrides the run's
   * `approvalTimeoutMs`). When it passes undecided, the call is denied (see `autoApproveOnTimeout`).
   */
  approvalTimeoutMs?: number;
  /**
   * With a deadline: a call still undecided when it passes runs instead of being denied. Only for tools that are
   * safe to run unattended; default false (a passed deadline denies, failing closed).
   */
  autoApproveOnTimeout?: boolean;
}

/**
 * Token usage of one or more model calls, as the provider reported it. The adapter sets it on each
 * {@link ModelResponse} (mapped from the provider's own fields); core sums it over a run (`AgentResult.usage`,
 * `run_end`) and checks budgets against the sum. Every count is a whole number of the provider's tokens,
 * finite and >= 0 (`validateModelResponse` checks); absent parts mean the provider did not say, not zero.
 */
export interface Usage {
  /**
   * Every input token of the request, cached ones included: `cacheReadTokens` and `cacheWriteTokens` are parts
   * of it (the Anthropic adapter adds `cache_read_input_tokens` and `cache_creation_input_tokens` to
   * `input_tokens`). Budgets (`budget.maxTokens`) count it.
   */
  inputTokens: number;
  /** Every output token, reasoning tokens included. Budgets (`budget.maxTokens`) count it. */
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of `inputTokens`); set by the adapter. */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`); set by the adapter. */
  cacheWriteTokens?: number;
  /** Output tokens spent on hidden reasoning (part of `outputTokens`); set by the adapter. */
  reasoningTokens?: number;
  /**
   * What these tokens cost, in US dollars (a float, not cents). Set by `resolveModel` of @bridle/models when the
   * model's price is known (its `modelPrices` per million tokens, or the caller's `prices`), never by an adapter
   * on its own; summed by core and counted against `budget.maxCostUsd`. Absent when the price is unknown.
   */
  costUsd?: number;
}

/** Why a model stopped, mapped from each provider's own reason (the raw value is kept in `providerData`). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** A JSON value: what can be journaled and sent back to a provider unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * One call to a model, built by core for every attempt of every step; the adapter turns it into the provider's
 * request. Read-only for the model: it must not mutate anything it is given.
 */
export interface ModelRequest {
  /**
   * The system prompt (never a message): `system` of the run, plus one `<skill>` section per skill and the
   * output-schema instructions when `output` is set. Absent when there is none.
   */
  system?: string;
  /**
   * The transcript to answer: starts with a user message and passes `assertTranscript`. The whole history, or
   * core's selection of it when `context.maxContextChars` is set (the first user message plus the newest whole
   * groups). Assistant messages may carry another provider's `providerData`: an adapter ignores what is not its own.
   */
  messages: readonly Message[];
  /** The tools the model may call this step, as JSON Schema definitions from the registry (may be empty). */
  tools: readonly ToolDefinition[];
  /**
   * Aborted when the run is cancelled (its `signal`) or passes its deadline (`timeoutMs`); its `reason` is the
   * cause. The adapter passes it to the HTTP request, and a model rejects promptly once it aborts. Core makes it
   * on first read (an accessor: an `AbortController` costs microseconds, and most models in tests never look), so
   * a wrapper that copies the request passes it on by name: `{ ...request, messages, signal: request.signal }`.
   */
  signal: AbortSignal;
}

/**
 * What a model returns for one request, made by the adapter from the provider's answer. Core checks it with
 * `validateModelResponse` before using it (an invalid one is a `model_error`, never appended).
 */
export interface ModelResponse {
  /**
   * The answer text, all text parts joined (empty when the model only calls tools). With no tool calls it is the
   * run's final answer; core copies it to the assistant message and to `model_end.content`.
   */
  content: string;
  /**
   * Tool calls the model asks for, in the provider's order; ids unique within the response. Absent or empty
   * means a final answer. Core runs them as one batch and records a private copy in the transcript.
   */
  toolCalls?: ToolCall[];
  /** Token usage of this call (see {@link Usage}), when the provider reported it; core treats absent as zero. */
  usage?: Usage;
  /**
   * Why the model stopped, mapped by the adapter from the provider's own reason (SPEC "finishReason mapping";
   * the raw value is kept in `providerData`). `length` on a final answer means the output limit cut it: core
   * says so in `model_end.finishReason` and the result's `finishReason`. Absent when the provider did not say.
   */
  finishReason?: FinishReason;
  /**
   * Opaque JSON the same provider needs back on the next request (thinking blocks with their signatures,
   * reasoning items, the raw finish reason). Set by the adapter; core copies it to the assistant message and
   * journals it; only the adapter that made it reads it.
   */
  providerData?: JsonValue;
  /**
   * The id of the model that actually answered, when it is not the one asked (set by `fallback()` of
   * @bridle/models). Core copies it to `model_end.model` and the result's `model`.
   */
  model?: string;
}

/** A part of a streamed response: text deltas, then exactly one final `response`. */
export type ModelStreamPart = { type: 'text_delta'; text: string } | { type: 'response'; response: ModelResponse };

/** A language model behind any provider. */
export interface Model {
  /** e.g. `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-6`. */
  readonly id: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** Optional streaming: yields text deltas and ends with `{ type: 'response', response }`. */
  stream?(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}
