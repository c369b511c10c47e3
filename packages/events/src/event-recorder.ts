import type { EventObserver, RunEvent } from './types';

/** An observer that keeps every event, for tests and post-run summaries. */
export interface EventRecorder {
  /** The events received so far, in order. */
  readonly events: RunEvent[];
  /** Pass this as `onEvent`. */
  onEvent: EventObserver;
}

/** Creates an {@link EventRecorder}. */
export function eventRecorder(): EventRecorder {
  const events: RunEvent[] = [];
  return { events, onEvent: (event) => void events.push(event) };
}
