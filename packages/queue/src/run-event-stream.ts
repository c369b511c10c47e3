import type { RunEvent } from '@bridle/protocol';
import type { Redis } from 'ioredis';

/** How long a run's event stream is kept after its last event, in ms (24 h). */
export const EVENT_STREAM_TTL_MS = 24 * 60 * 60 * 1000;
/** Most events kept per run stream (older ones are trimmed; the store's journal keeps them all). */
export const EVENT_STREAM_MAX_LENGTH = 10_000;

/** How long the first event of a batch waits for more before the batch is sent, in ms. */
export const PUBLISH_WINDOW_MS = 5;

/**
 * Publishes a run's events to its Redis stream, in order. Events emitted within {@link PUBLISH_WINDOW_MS} of
 * each other (a step's start and the journal write before its model call; a step's end and the run's end) go
 * in one pipeline with a single expiry refresh, so publishing costs about a round trip per step, not four
 * commands per event; a `run_end` is sent at once. Publishing never fails the run: the journal in the store
 * is the record; an error goes to `onError`. Nothing is sent before `after` settles (the run's first events are
 * in the store: a follower that reads the run on its first event finds it).
 */
export function eventPublisher(
  redis: Redis,
  key: string,
  onError: (error: unknown) => void,
  after: Promise<unknown> = Promise.resolve(),
) {
  let tail: Promise<unknown> = after;
  let batch: string[] = [];
  let hurry: (() => void) | undefined;
  let urgent = false;
  const send = () => {
    hurry = undefined;
    urgent = false;
    const texts = batch;
    batch = [];
    const pipeline = redis.pipeline();
    for (const text of texts) pipeline.xadd(key, 'MAXLEN', '~', String(EVENT_STREAM_MAX_LENGTH), '*', 'event', text);
    pipeline.pexpire(key, EVENT_STREAM_TTL_MS);
    return pipeline.exec().then((results) => {
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0];
    });
  };
  const gather = () =>
    new Promise<void>((resolve) => {
      if (urgent) return setImmediate(resolve);
      const timer = setTimeout(resolve, PUBLISH_WINDOW_MS);
      hurry = () => {
        clearTimeout(timer);
        setImmediate(resolve);
      };
    });
  return {
    publish(event: RunEvent): void {
      batch.push(JSON.stringify(event));
      // The first event of a batch schedules the send; the ones emitted in the window join it.
      if (batch.length === 1) tail = tail.then(gather).then(send).catch(onError);
      if (event.type === 'run_end') {
        urgent = true;
        hurry?.();
      }
    },
    /** Resolves once every event published so far was written (or failed). */
    flushed: (): Promise<void> => tail.then(() => undefined),
  };
}
