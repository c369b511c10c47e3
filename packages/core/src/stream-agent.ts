import type { EventObserver, RunEvent } from '@bridle/events';
import { AsyncQueue } from './async-queue';
import { runAgent } from './run-agent';
import type { AgentResult, RunAgentOptions } from './types';

/** What {@link streamAgent} returns. */
export interface AgentStream<Output = unknown> {
  /** Every event of the run (a sub-agent's too, with `parentRunId`), `run_end` last. */
  events: AsyncIterable<RunEvent>;
  /** The run's own streamed text deltas (not a sub-agent's). */
  text: AsyncIterable<string>;
  /** The run's result, as `runAgent` resolves it (rejects with `ConfigError` for invalid options). */
  result: Promise<AgentResult<Output>>;
}

/**
 * Runs an agent like `runAgent` (with `stream: true` unless set) and hands out its events and its text
 * as async iterables, each buffered from the start and each iterable once. Breaking out of a loop stops
 * that iterable only: the run goes on (cancel it with `signal`). When the run cannot start (invalid
 * options), `result` rejects and both loops throw the same error.
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
  const result = runAgent<Output>({ ...options, stream: options?.stream ?? true, onEvent: observers });
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
  return { events, text, result };
}
