import type { Usage } from '@bridle/protocol';

/** Fields every run event carries, added by {@link RunEmitter}. */
export interface EventBase {
  /** The run this event belongs to. */
  runId: string;
  /** 0, 1, 2, ... in emission order within one run. */
  sequence: number;
  /** Wall-clock time of emission, ISO 8601 (`2025-01-31T12:00:00.000Z`). */
  timestamp: string;
}

/** A run began. */
export interface RunStartBody {
  type: 'run_start';
  /** The model id, e.g. `openai:gpt-4o-mini`. */
  model: string;
  system?: string;
  prompt?: string;
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

/** A tool call of an admitted batch began (emitted for every call, before validation and approval). */
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

/** The run ended. Emitted exactly once per run, always last. */
export interface RunEndBody {
  type: 'run_end';
  /** An `AgentStatus`: `completed`, `step_limit`, `tool_limit`, `timeout`, `aborted`, `model_error`, `context_limit`. */
  status: string;
  steps: number;
  toolCalls: number;
  /** Token usage summed over the run. */
  usage: Usage;
  /** Milliseconds since the emitter was created (monotonic clock). */
  durationMs: number;
  error?: string;
  answer?: string;
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

type OmitDuration<T> = T extends unknown ? Omit<T, 'durationMs'> : never;

/** What the loop passes to {@link RunEmitter.emit}: an event body without `durationMs` (the emitter measures it). */
export type RunEventInput = OmitDuration<RunEventBody>;

/** Receives every event of a run, synchronously, in order. Should return quickly and not throw. */
export type EventObserver = (event: RunEvent) => void;

/** Every event `type`, in lifecycle order (for validation, SSE filters, docs). */
export const RUN_EVENT_TYPES = [
  'run_start',
  'model_start',
  'text_delta',
  'model_end',
  'model_error',
  'tool_start',
  'tool_end',
  'run_end',
] as const satisfies readonly RunEventType[];

// Compile-time check that the list above names every type of the union.
type MissingEventType = Exclude<RunEventType, (typeof RUN_EVENT_TYPES)[number]>;
const everyEventTypeListed: MissingEventType extends never ? true : never = true;
void everyEventTypeListed;

/** True when `value` is one of {@link RUN_EVENT_TYPES}. */
export function isRunEventType(value: unknown): value is RunEventType {
  return typeof value === 'string' && (RUN_EVENT_TYPES as readonly string[]).includes(value);
}
