import { RunEmitter, type RunEmitterOptions } from '@bridle/events';
import type { Journal } from './journal';

/**
 * What the loop needs of an emitter: `emit`, `emitOwned` and `forward` (none throws). The loop's own events of
 * every step (`model_start`, `model_end`, `run_start`, `run_end`) are made with the stamp's keys in place
 * (`runId: ''`, `sequence: 0`, `timestamp: ''` after `type`) and go to `emitOwned`, which stamps them without a
 * copy.
 */
export type EventSink = Pick<RunEmitter, 'emit' | 'emitOwned' | 'forward'>;

// Nobody listens: stamping events (ISO time, durations) would be pure overhead on every step.
const SILENT: EventSink = { emit: () => undefined, emitOwned: () => undefined, forward: () => undefined };

/** True for the sink that drops every event (nobody observes the run). */
export function isSilent(sink: EventSink): boolean {
  return sink === SILENT;
}

/**
 * A `RunEmitter` when there are observers or a journal, else a sink that drops every event. `options` is made
 * for this call: with a journal, its `onEvent` is set to the journal's observer and the caller's.
 */
export function eventSink(options: RunEmitterOptions, journal?: Journal): EventSink {
  const { onEvent } = options;
  const observed = typeof onEvent === 'function' || (Array.isArray(onEvent) && onEvent.length > 0);
  if (journal) {
    // The journal first, then the caller's observers; `options` is the caller's own object (ours to change).
    options.onEvent =
      onEvent === undefined
        ? journal.observe
        : typeof onEvent === 'function'
          ? [journal.observe, onEvent]
          : [journal.observe, ...onEvent];
    return new RunEmitter(options);
  }
  return observed ? new RunEmitter(options) : SILENT;
}
