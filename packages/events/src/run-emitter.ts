import { isThenable } from '@bridle/protocol/internal';
import { isoTimestamp } from './iso-timestamp';
import type { EventBase, EventObserver, RunEvent, RunEventInput } from './types';

/**
 * An event made for {@link RunEmitter.emitOwned}: a body whose first four keys are `type`, `runId`, `sequence` and
 * `timestamp` (any values: the emitter writes them), as a stamped event has them.
 */
export type OwnedEventInput = RunEventInput & Pick<EventBase, 'runId' | 'sequence' | 'timestamp'>;

/** Options of {@link RunEmitter}. */
export interface RunEmitterOptions {
  runId: string;
  /** Observers called for every event, in order. */
  onEvent?: EventObserver | readonly EventObserver[] | undefined;
  /** Hears every error an observer throws (or rejects with). If it throws itself, that is swallowed. */
  onObserverError?: ((error: unknown, event: RunEvent) => void) | undefined;
  /** The `sequence` of the first event; default 0. A resumed run continues its journal's numbering. */
  firstSequence?: number;
}

/**
 * Stamps run events and hands them to observers.
 *
 * `emit` adds `runId`, `sequence` (0, 1, 2, ...), an ISO `timestamp`, and for `model_end` / `tool_end` /
 * `run_end` a `durationMs` measured with `performance.now()` from the matching `model_start` (same step,
 * last attempt) / `tool_start` (same `callId`) / construction of the emitter; 0 when no matching start
 * was seen (rounded to the microsecond). All observers receive the same event object: treat it as
 * read-only (it is not frozen, because `Object.freeze` would triple the cost of `emit`).
 * Observers are isolated: an observer that throws, or returns a promise that rejects, is reported to
 * `onObserverError` and changes nothing else. `emit` never throws. After `run_end`, further emits are
 * ignored, so `run_end` is emitted at most once and always last.
 */
export class RunEmitter {
  readonly runId: string;
  readonly #observers: readonly EventObserver[];
  readonly #onObserverError: ((error: unknown, event: RunEvent) => void) | undefined;
  readonly #startedAt = performance.now();
  // The last `model_start`'s step and time in two fields: the loop calls one model at a time, and a map made
  // per run (then emptied, which remakes its table) cost measurably. Starts of other steps still waiting for
  // their `model_end` wait in the map, made on first use like the tools' (a run without tools never needs it).
  #modelStep: number | undefined;
  #modelStartedAt = 0;
  #modelStarts: Map<number, number> | undefined;
  #toolStarts: Map<string, number> | undefined;
  #sequence = 0;
  #ended = false;

  constructor(options: RunEmitterOptions) {
    this.runId = options.runId;
    const { onEvent } = options;
    this.#observers = onEvent === undefined ? [] : typeof onEvent === 'function' ? [onEvent] : [...onEvent];
    this.#onObserverError = options.onObserverError;
    this.#sequence = options.firstSequence ?? 0;
  }

  /** The `sequence` the next event will get. */
  get nextSequence(): number {
    return this.#sequence;
  }

  /** True once `run_end` has been emitted. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Milliseconds since the emitter was created (monotonic clock). */
  elapsedMs(): number {
    return performance.now() - this.#startedAt;
  }

  /** Stamps `input`, calls every observer, and returns the event; `undefined` after `run_end`. Never throws. */
  emit(input: RunEventInput): RunEvent | undefined {
    if (this.#ended) return undefined;
    let event: OwnedEventInput;
    try {
      // A copy with `type` and the stamp's keys first (JSON lines stay readable); emitOwned writes the stamp
      // after the body, so an input carrying its own runId / sequence / timestamp cannot override it.
      event = Object.assign({ type: input.type, runId: '', sequence: 0, timestamp: '' }, input);
    } catch {
      // Only a malformed input (not a RunEventInput at all) can get here; emit never throws.
      return undefined;
    }
    return this.emitOwned(event);
  }

  /**
   * `emit` for an event made for it alone: `event` already has the stamp's keys first (`type`, `runId`,
   * `sequence`, `timestamp`, see {@link OwnedEventInput}), and its maker never reads or reuses it. It is stamped
   * in place, so observers get the very fields, in the same order, that `emit` would have copied (without the
   * copy: emit's `Object.assign` cost more than the rest of a small event's stamp). Never throws.
   */
  emitOwned(event: OwnedEventInput): RunEvent | undefined {
    if (this.#ended) return undefined;
    const stamped = event as RunEvent;
    stamped.runId = this.runId;
    stamped.sequence = this.#sequence++;
    stamped.timestamp = isoTimestamp(Date.now());
    this.#measure(stamped);
    for (const observer of this.#observers) this.#notify(observer, stamped);
    return stamped;
  }

  /**
   * Hands an event stamped elsewhere (a sub-agent's, say) to the observers unchanged: no stamp, no
   * sequence number of this run. Ignored after `run_end`. Never throws.
   */
  forward(event: RunEvent): void {
    if (this.#ended) return;
    for (const observer of this.#observers) this.#notify(observer, event);
  }

  /** Adds `durationMs` to an end event, and notes the time of a start. */
  #measure(event: RunEvent): void {
    switch (event.type) {
      // Only these read the monotonic clock (a call costs as much as a small event's copy).
      case 'model_start':
        if (this.#modelStep !== undefined && this.#modelStep !== event.step) {
          this.#modelStarts ??= new Map();
          this.#modelStarts.set(this.#modelStep, this.#modelStartedAt);
        }
        this.#modelStarts?.delete(event.step);
        this.#modelStep = event.step;
        this.#modelStartedAt = performance.now();
        break;
      case 'model_end':
        (event as { durationMs: number }).durationMs = elapsed(this.#modelStart(event.step));
        break;
      case 'tool_start':
        this.#toolStarts ??= new Map();
        this.#toolStarts.set(event.callId, performance.now());
        break;
      case 'tool_end':
        (event as { durationMs: number }).durationMs = elapsed(this.#toolStarts?.get(event.callId));
        this.#toolStarts?.delete(event.callId);
        break;
      case 'run_end':
        (event as { durationMs: number }).durationMs = roundMs(performance.now() - this.#startedAt);
        this.#ended = true;
        this.#modelStep = undefined;
        this.#modelStarts = undefined;
        this.#toolStarts = undefined;
        break;
    }
  }

  /** The time of the last `model_start` of `step` (undefined without one), forgotten as its `model_end` reads it. */
  #modelStart(step: number): number | undefined {
    if (this.#modelStep === step) {
      this.#modelStep = undefined;
      return this.#modelStartedAt;
    }
    const start = this.#modelStarts?.get(step);
    this.#modelStarts?.delete(step);
    return start;
  }

  #notify(observer: EventObserver, event: RunEvent): void {
    try {
      const result: unknown = observer(event);
      // An async observer's rejection would otherwise become an unhandled rejection (and may kill the process).
      if (isThenable(result)) result.then(undefined, (error: unknown) => this.#report(error, event));
    } catch (error) {
      this.#report(error, event);
    }
  }

  #report(error: unknown, event: RunEvent): void {
    if (!this.#onObserverError) return;
    try {
      this.#onObserverError(error, event);
    } catch {
      // The error hook failed too: there is nobody left to tell, and the run must not change.
    }
  }
}

/** Milliseconds rounded to the microsecond: more digits are noise and only bloat event logs. */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function elapsed(start: number | undefined): number {
  return start === undefined ? 0 : roundMs(performance.now() - start);
}
