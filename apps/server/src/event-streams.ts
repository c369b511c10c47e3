import { ServerError } from './server-error';

/** The bounds of {@link EventStreams}. */
export interface EventStreamBounds {
  /** `BRIDLE_MAX_EVENT_STREAMS`: streams open at once in this server. */
  maxStreams: number;
  /** `BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT`: streams open at once from one client address. */
  maxStreamsPerClient: number;
}

/**
 * The open `GET /api/runs/:id/events` streams, bounded per client address and in total: each one holds a
 * connection (and, for a run running elsewhere, a read of the store every half second) for as long as the
 * run goes on, so without a bound a few clients could hold the server's connections and the store's time.
 */
export class EventStreams {
  readonly #bounds: EventStreamBounds;
  readonly #byClient = new Map<string, number>();
  #open = 0;

  constructor(bounds: EventStreamBounds) {
    this.#bounds = bounds;
  }

  /** Streams open now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a place for a stream of `client` (its address); returns the function that gives it back (idempotent).
   * Throws `ServerError` `too_many_streams` (429) past the client's bound and `streams_full` (503) past the
   * total, each naming the setting; both with `Retry-After`.
   */
  acquire(client: string): () => void {
    const { maxStreams, maxStreamsPerClient } = this.#bounds;
    const mine = this.#byClient.get(client) ?? 0;
    if (mine >= maxStreamsPerClient) {
      throw new ServerError(
        'too_many_streams',
        `This client already follows ${mine} runs, the most BRIDLE_MAX_EVENT_STREAMS_PER_CLIENT=${maxStreamsPerClient} allows: close a stream (or wait for its run to end) and retry.`,
        { retryAfterSeconds: 5 },
      );
    }
    if (this.#open >= maxStreams) {
      throw new ServerError(
        'streams_full',
        `The server already has ${this.#open} event streams open, the most BRIDLE_MAX_EVENT_STREAMS=${maxStreams} allows: retry shortly.`,
        { retryAfterSeconds: 5 },
      );
    }
    this.#open++;
    this.#byClient.set(client, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open--;
      const left = (this.#byClient.get(client) ?? 1) - 1;
      if (left === 0) this.#byClient.delete(client);
      else this.#byClient.set(client, left);
    };
  }
}
