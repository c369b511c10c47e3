export { type ConsoleSinkOptions, consoleSink, defaultColor } from './console-sink';
export { type EventRecorder, eventRecorder } from './event-recorder';
export { type EventStyle, formatEvent, preview, type Stylize } from './format-event';
export { type JsonlSink, type JsonlSinkOptions, jsonlSink } from './jsonl-sink';
export { type OtelSink, type OtelSinkOptions, otelSink } from './otel-sink';
export type {
  OtelAttributes,
  OtelAttributeValue,
  OtelContext,
  OtelHrTime,
  OtelSpan,
  OtelTracer,
} from './otel-types';
export { type OwnedEventInput, RunEmitter, type RunEmitterOptions } from './run-emitter';
export { type EventSummary, summarizeEvents, type ToolSummary } from './summarize-events';
export { toJsonLine } from './to-json-line';
export type {
  EventBase,
  EventObserver,
  InputBody,
  ModelEndBody,
  ModelErrorBody,
  ModelStartBody,
  RunEndBody,
  RunEvent,
  RunEventBody,
  RunEventInput,
  RunEventOf,
  RunEventType,
  RunStartBody,
  TextDeltaBody,
  ToolEndBody,
  ToolStartBody,
} from './types';
export { isRunEventType, RUN_EVENT_TYPES } from './types';
