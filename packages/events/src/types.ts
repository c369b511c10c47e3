import type { RunEvent, RunEventBody, RunEventType } from '@bridle/protocol';

export type {
  EventBase,
  InputBody,
  ModelEndBody,
  ModelErrorBody,
  ModelStartBody,
  RunEndBody,
  RunEvent,
  RunEventBody,
  RunEventOf,
  RunEventType,
  RunStartBody,
  TextDeltaBody,
  ToolEndBody,
  ToolStartBody,
} from '@bridle/protocol';

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
  'approval_requested',
  'approval_decided',
  'input',
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
