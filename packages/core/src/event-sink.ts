import { RunEmitter, type RunEmitterOptions } from '@bridle/events';

/** What the loop needs of an emitter: `emit` (never throws). */
export type EventSink = Pick<RunEmitter, 'emit'>;

// Nobody listens: stamping events (ISO time, durations) would be pure overhead on every step.
const SILENT: EventSink = { emit: () => undefined };

/** A `RunEmitter` when there are observers, else a sink that drops every event. */
export function eventSink(options: RunEmitterOptions): EventSink {
  const { onEvent } = options;
  const observed = typeof onEvent === 'function' || (Array.isArray(onEvent) && onEvent.length > 0);
  return observed ? new RunEmitter(options) : SILENT;
}
