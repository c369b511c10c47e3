/** A tool call proposed by the model. `arguments` is parsed JSON, or the raw string when it was not JSON. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** A user turn. */
export interface UserMessage {
  role: 'user';
  content: string;
}

/** A model turn: text, and optionally one batch of tool calls. */
export interface AssistantMessage {
  role: 'assistant';
  /** The model's text for this turn (may be empty when it only calls tools). */
  content: string;
  /** The tool calls of this turn, answered by the tool messages that follow directly. */
  toolCalls?: ToolCall[];
  /**
   * Opaque provider data copied from the {@link ModelResponse} that produced this turn (thinking blocks,
   * reasoning items). Sent back only to the provider that made it; other adapters ignore it.
   */
  providerData?: JsonValue;
}

/** The result of one tool call, answering the call with the same `callId`. */
export interface ToolMessage {
  role: 'tool';
  callId: string;
  name: string;
  content: string;
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
  /** Aborted when the run is cancelled or times out: stop work and reject promptly. */
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
}

/** Token usage of one or more model calls, as the provider reported it. */
export interface Usage {
  /** Every input token, cached ones included (`cacheReadTokens` and `cacheWriteTokens` are parts of it). */
  inputTokens: number;
  /** Every output token, reasoning tokens included. */
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of `inputTokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache (part of `inputTokens`). */
  cacheWriteTokens?: number;
  /** Output tokens spent on hidden reasoning (part of `outputTokens`). */
  reasoningTokens?: number;
  /** What these tokens cost in US dollars, when the model's price is known. */
  costUsd?: number;
}

/** Why a model stopped, mapped from each provider's own reason (the raw value is kept in `providerData`). */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'error' | 'other';

/** A JSON value: what can be journaled and sent back to a provider unchanged. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One call to a model, built by the loop for every step. */
export interface ModelRequest {
  /** The system prompt (never a message). */
  system?: string;
  /** The transcript to answer: starts with a user message, passes `assertTranscript`. */
  messages: readonly Message[];
  /** The tools the model may call this step (may be empty). */
  tools: readonly ToolDefinition[];
  /** Aborted when the run is cancelled or times out: the adapter cancels the HTTP request. */
  signal: AbortSignal;
}

/** What a model returns for one request; checked by `validateModelResponse` before the loop uses it. */
export interface ModelResponse {
  /** The answer text (empty when the model only calls tools). */
  content: string;
  /** Tool calls the model asks for; ids unique within the response. */
  toolCalls?: ToolCall[];
  /** Token usage of this call, when the provider reported it. */
  usage?: Usage;
  /** Why the model stopped, when the provider said. */
  finishReason?: FinishReason;
  /** Opaque data the same provider needs back on the next request; copied to the assistant message. JSON only. */
  providerData?: JsonValue;
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
