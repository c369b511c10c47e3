import type { RunState } from './run-state';
import type { FinishReason, JsonValue, Message, Usage } from './types';

/** Fields every run event carries, added by the emitter (`RunEmitter` of @bridle/events). */
export interface EventBase {
  /** The run this event belongs to. */
  runId: string;
  /** 0, 1, 2, ... in emission order within one run. */
  sequence: number;
  /** Wall-clock time of emission, ISO 8601 (`2025-01-31T12:00:00.000Z`). */
  timestamp: string;
  /** Set on a sub-agent's events as they reach the parent's observers: the parent's run id. */
  parentRunId?: string;
}

/** A run began. */
export interface RunStartBody {
  type: 'run_start';
  /** The model id, e.g. `openai:gpt-4o-mini`. */
  model: string;
  system?: string;
  prompt?: string;
  /** True when this segment continues a paused or interrupted run (`resumeRun`). */
  resumed?: boolean;
  /** The session the run belongs to, when an app gave one. */
  sessionId?: string;
  /**
   * The transcript a journaled run started from, when it was given as `messages` (not `prompt`): with
   * the events that follow, it is what `resumeRun` rebuilds the run from. Set only when the run has a store.
   */
  messages?: Message[];
  /**
   * A journaled segment's own random id: two processes opening the same segment at once (two resumes of
   * one paused run) write different events, so the store refuses the second before it runs anything.
   */
  segmentId?: string;
  /** A resumed segment: the decisions it was given on pending calls, by call id (journaled with it). */
  approvals?: Record<string, boolean | { approved: false; reason?: string }>;
}

/** A model call (one attempt of one step) began. */
export interface ModelStartBody {
  type: 'model_start';
  /** 1-based step number. */
  step: number;
  /** 1-based attempt number within the step (greater than 1 after a retry). */
  attempt: number;
}

/** A model call returned a valid response. */
export interface ModelEndBody {
  type: 'model_end';
  step: number;
  /** Milliseconds since the matching `model_start` (monotonic clock). */
  durationMs: number;
  usage: Usage;
  /** Number of tool calls the response asked for. */
  toolCalls: number;
  /** The response text. */
  content: string;
  /** Why the model stopped, when the provider said. */
  finishReason?: FinishReason;
  /** The id of the model that answered (differs from the run's model behind a fallback). */
  model?: string;
  /** The full response's tool calls and provider data, journaled so a resumed run never calls the model again. */
  response?: { toolCalls?: { id: string; name: string; arguments: unknown }[]; providerData?: JsonValue };
}

/** A model call failed (it may be retried: see `willRetry`). */
export interface ModelErrorBody {
  type: 'model_error';
  step: number;
  attempt: number;
  /** The error message. */
  error: string;
  /** The `BridleError` code, when there is one. */
  code?: string;
  retryable: boolean;
  willRetry: boolean;
}

/**
 * A tool call of an admitted batch began (emitted for every call, before validation). Approvals of a
 * batch are decided before any of its calls starts.
 */
export interface ToolStartBody {
  type: 'tool_start';
  step: number;
  callId: string;
  name: string;
  arguments: unknown;
}

/** A tool call produced its result (or error result). */
export interface ToolEndBody {
  type: 'tool_end';
  step: number;
  callId: string;
  name: string;
  /** Milliseconds since the matching `tool_start` (monotonic clock). */
  durationMs: number;
  isError: boolean;
  /** The (bounded) result text the model sees. */
  result: string;
}

/** A piece of streamed model text (only when streaming). */
export interface TextDeltaBody {
  type: 'text_delta';
  step: number;
  text: string;
}

/** The run (or, for a paused run, its segment) ended. Emitted exactly once per segment, always last. */
export interface RunEndBody {
  type: 'run_end';
  /**
   * An `AgentStatus`: `completed`, `step_limit`, `tool_limit`, `timeout`, `aborted`, `model_error`,
   * `context_limit`, `awaiting_approval` (the segment paused; `resumeRun` opens the next), `budget_limit`.
   */
  status: string;
  steps: number;
  toolCalls: number;
  /** Token usage summed over the run. */
  usage: Usage;
  /** Milliseconds since the emitter was created (monotonic clock). */
  durationMs: number;
  error?: string;
  answer?: string;
  /** The last response's finish reason (as `AgentResult.finishReason`; `length`: the output limit cut it). */
  finishReason?: FinishReason;
  /** Present when the run paused (`awaiting_approval`): what `resumeRun` needs. */
  state?: RunState;
  /** The calls waiting for a person's decision (status `awaiting_approval`). */
  pendingApprovals?: { callId: string; name: string; arguments: unknown }[];
}

/** The event bodies, without the fields the emitter adds. */
export type RunEventBody =
  | RunStartBody
  | ModelStartBody
  | ModelEndBody
  | ModelErrorBody
  | ToolStartBody
  | ToolEndBody
  | TextDeltaBody
  | RunEndBody;

/** One run event: a discriminated union on `type`, with `runId`, `sequence` and `timestamp`. */
export type RunEvent = EventBase & RunEventBody;

/** The `type` of a run event. */
export type RunEventType = RunEvent['type'];

/** The run event of one `type`, e.g. `RunEventOf<'tool_end'>`. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
