import type { Message, RunSignal, RunSignalChannel } from '@bridle/protocol';
import type { EventSink } from './event-sink';
import type { RunContext } from './run-context';
import type { RunScope } from './run-scope';

/** A steering message waiting for the next step boundary. */
export interface PendingInput {
  content: string;
  by?: string;
}

/**
 * What one run segment has heard from outside: steering input waiting for the next step boundary, and who
 * cancelled it. Signals come from the segment's channels (its store's, a queue's, a `streamAgent` handle's);
 * one signal heard on two channels (same `id`) counts once.
 */
export class RunInbox {
  /** Who cancelled the run through a `cancel` signal (the first one wins). */
  cancelledBy: string | undefined;
  #inputs: PendingInput[] = [];
  // Made when the first signal comes: most runs hear none.
  #seen: Set<string> | undefined;

  constructor(private readonly scope: RunScope) {}

  /** Takes one signal: an input waits for the next boundary; a cancel aborts the run at once. Never throws. */
  readonly receive = (signal: RunSignal): void => {
    this.#seen ??= new Set();
    if (this.#seen.has(signal.id)) return;
    this.#seen.add(signal.id);
    if (signal.type === 'input') {
      this.#inputs.push(
        signal.by === undefined ? { content: signal.content } : { content: signal.content, by: signal.by },
      );
      return;
    }
    if (this.scope.reason) return;
    const by = signal.by ?? 'unnamed';
    this.cancelledBy = by;
    this.scope.abort(new DOMException(`The run was cancelled by ${by}`, 'AbortError'));
  };

  /** True when input waits for the next step boundary. */
  get waiting(): boolean {
    return this.#inputs.length > 0;
  }

  /**
   * At a step boundary: journals each waiting input as an `input` event and appends it to the transcript as a
   * user message. Returns how many were delivered.
   */
  deliver(emitter: EventSink, messages: Message[]): number {
    const inputs = this.#take();
    for (const input of inputs) {
      emitter.emit({ type: 'input', ...input });
      messages.push({ role: 'user', content: input.content });
    }
    return inputs.length;
  }

  /**
   * The segment paused with input still waiting: it is journaled (as `input` events before the pause's
   * `run_end`) and joins the transcript when the run is resumed, after the paused batch.
   */
  keep(emitter: EventSink): void {
    for (const input of this.#take()) emitter.emit({ type: 'input', ...input });
  }

  /**
   * Listens on every channel for run `runId`; gives the function that stops them, at once when there is no
   * channel, else once all listen. A channel that cannot listen (its database is down) is left out: the run
   * goes on without it. Never rejects.
   */
  listen(channels: readonly RunSignalChannel[], runId: string): (() => void) | Promise<() => void> {
    if (channels.length === 0) return noop;
    if (channels.length === 1) {
      // The common case (the store's channel alone): its own promise, without an async wrapper or allSettled's
      // promise and result objects.
      try {
        return Promise.resolve((channels[0] as RunSignalChannel).listenRunSignals(runId, this.receive)).then(
          undefined,
          stopNothing,
        );
      } catch {
        return noop;
      }
    }
    return Promise.allSettled(channels.map((channel) => channel.listenRunSignals(runId, this.receive))).then(
      (settled) => {
        const stops = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
        return () => {
          for (const stop of stops) stop();
        };
      },
    );
  }

  #take(): PendingInput[] {
    const inputs = this.#inputs;
    this.#inputs = [];
    return inputs;
  }
}

function noop(): void {}

/** A channel that failed to listen: nothing to stop. */
function stopNothing(): () => void {
  return noop;
}

/**
 * The step boundary's delivery: input journaled before this segment (kept at a pause) joins the transcript,
 * then input heard since the last boundary is journaled and joins it.
 */
export function deliverInput(run: RunContext): void {
  const { state } = run;
  if (state.pendingInputs) {
    for (const input of state.pendingInputs) state.messages.push({ role: 'user', content: input.content });
    state.pendingInputs = undefined;
  }
  run.inbox.deliver(run.emitter, state.messages);
}
