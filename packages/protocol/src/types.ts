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
  content: string;
  toolCalls?: ToolCall[];
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
  callId: string;
  runId: string;
}

/** A tool the harness can execute. Plain objects work: no base class needed. */
export interface Tool<A = unknown, R = unknown> extends ToolDefinition {
  /** Receives validated arguments. Throw an `Error` to refuse or fail: the message reaches the model. */
  execute(args: A, context: ToolContext): R | Promise<R>;
  /** No side effects: may run concurrently with other read-only calls, and is safe to retry. */
  readOnly?: boolean;
  /** The loop asks its `approve` hook before executing; without a hook the call is denied. */
  requiresApproval?: boolean;
}

/** Token usage of one or more model calls. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** One call to a model. */
export interface ModelRequest {
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  signal: AbortSignal;
}

/** What a model returns for one request. */
export interface ModelResponse {
  content: string;
  toolCalls?: ToolCall[];
  usage?: Usage;
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
