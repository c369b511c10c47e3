import { randomUUID } from 'node:crypto';
import type { EventObserver, RunEvent } from '@bridle/events';
import { ConfigError } from '@bridle/protocol';
import { AsyncQueue } from './async-queue';
import { LocalChannel } from './local-channel';
import { runAgent } from './run-agent';
import type { AgentResult, RunAgentOptions } from './types';

/** Options of an {@link AgentStream}'s `input()` and `cancel()`. */
export interface SteerOptions {
  /** Who is steering or cancelling, journaled with it (`input.by`, `run_end.cancelledBy`). Default `'streamAgent'`. */
  by?: string;
}

/** What {@link streamAgent} returns. */
export interface AgentStream<Output = unknown> {
  /** Every event of the run (a sub-agent's too, with `parentRunId`), `run_end` last. */
  events: AsyncIterable<RunEvent>;
  /** The run's own streamed text deltas (not a sub-agent's). */
  text: AsyncIterable<string>;
  /** The run's result, as `runAgent` resolves it (rejects with `ConfigError` for invalid options). */
  result: Promise<AgentResult<Output>>;
  /**
   * Steers the run: `text` is added as a user message at the next step boundary (before the next model call,
   * never inside a batch of tool calls), journaled and acknowledged as an `input` event. Input that comes
   * while the model gives its final answer makes the run go on (steps allowing); input after the run ended,
   * or with a run that pauses without a store, is dropped. Throws `ConfigError` for an empty or non-string text.
   */
  input(text: string, options?: SteerOptions): void;
  /** Cancels the run: it ends `aborted`, its `run_end` and result carry `cancelledBy`. A second call does nothing. */
  cancel(options?: SteerOptions): void;
}

function steeredBy(options: SteerOptions | undefined): string {
  const by = options?.by ?? 'streamAgent';
  if (typeof by !== 'string' || by === '' || by.length > 200)
    throw new ConfigError(`Invalid option by: expected a string of 1 to 200 characters, got ${JSON.stringify(by)}.`);
  return by;
}

/**
 * Runs an agent like `runAgent` (with `stream: true` unless set) and hands out its events and its text
 * as async iterables, each buffered from the start and each iterable once. Breaking out of a loop stops
 * that iterable only: the run goes on (cancel it with `cancel()` or `signal`). `input()` steers the run.
 * When the run cannot start (invalid options), `result` rejects and both loops throw the same error.
 */
export function streamAgent<Output = unknown>(options: RunAgentOptions<Output>): AgentStream<Output> {
  const events = new AsyncQueue<RunEvent>();
  const text = new AsyncQueue<string>();
  const given = options?.onEvent;
  const observers: EventObserver[] = given === undefined ? [] : typeof given === 'function' ? [given] : [...given];
  observers.push((event) => {
    events.push(event);
    if (event.type === 'text_delta' && event.parentRunId === undefined) text.push(event.text);
  });
  const local = new LocalChannel();
  const channels = Array.isArray(options?.channels) ? [...options.channels, local] : (options?.channels ?? [local]);
  const result = runAgent<Output>({
    ...options,
    stream: options?.stream ?? true,
    onEvent: observers,
    channels,
  });
  result.then(
    () => {
      events.end();
      text.end();
    },
    (error: unknown) => {
      events.end({ error });
      text.end({ error });
    },
  );
  return {
    events,
    text,
    result,
    input(content, steer) {
      if (typeof content !== 'string' || content === '')
        throw new ConfigError(
          `input(text) needs the user message as a non-empty string, got ${JSON.stringify(content)}.`,
        );
      local.send({ type: 'input', id: randomUUID(), content, by: steeredBy(steer) });
    },
    cancel(steer) {
      local.send({ type: 'cancel', id: randomUUID(), by: steeredBy(steer) });
    },
  };
}
