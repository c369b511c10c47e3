import { createHash, randomUUID } from 'node:crypto';
import type { RunSignal } from '@bridle/protocol';
import type { Notification, Pool, PoolClient } from 'pg';
import { postgresOperationError } from './postgres-faults';
import { checkSignal, SignalHub } from './signal-hub';

// A NOTIFY payload must stay under 8000 bytes: longer signals travel in pieces of at most this many
// characters (4 bytes each at most in UTF-8), sent in one statement and put together by the listener.
const PIECE_CHARS = 1500;
const MAX_PARTIAL = 100;

interface Envelope {
  runId: string;
  signal?: RunSignal;
  /** A piece of a long signal: its id, index, count and text. */
  piece?: { id: string; index: number; count: number; text: string };
}

/**
 * Run signals over Postgres `LISTEN/NOTIFY`, one channel per schema. A process listens on one pooled
 * connection while some run of it listens, and gives it back when the last one stops; a signal is
 * delivered to every process listening for its run, once.
 */
export class PostgresSignals {
  readonly #hub = new SignalHub();
  readonly #channel: string;
  readonly #partial = new Map<string, string[]>();
  #client: PoolClient | undefined;
  /** Removes the handlers this listener put on a pooled connection. */
  readonly #handlers = new Map<PoolClient, () => void>();
  #tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly where: string,
  ) {
    // A channel name is an identifier (at most 63 bytes): the schema goes in as a short hash.
    this.#channel = `bridle_signals_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
  }

  async send(runId: string, signal: RunSignal): Promise<void> {
    const text = JSON.stringify({ runId, signal: checkSignal(signal) } satisfies Envelope);
    const payloads: string[] = [];
    if (text.length <= PIECE_CHARS) payloads.push(text);
    else {
      const id = randomUUID();
      const count = Math.ceil(text.length / PIECE_CHARS);
      for (let index = 0; index < count; index++) {
        const piece = text.slice(index * PIECE_CHARS, (index + 1) * PIECE_CHARS);
        payloads.push(JSON.stringify({ runId, piece: { id, index, count, text: piece } } satisfies Envelope));
      }
    }
    try {
      // One statement, one transaction: the pieces of a signal are delivered together or not at all.
      await this.pool.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS pieces (payload)', [
        this.#channel,
        payloads,
      ]);
    } catch (error) {
      throw postgresOperationError(error, this.where);
    }
  }

  async listen(runId: string, listener: (signal: RunSignal) => void): Promise<() => void> {
    const remove = this.#hub.add(runId, listener);
    try {
      await this.#serial(() => this.#start());
    } catch (error) {
      remove();
      throw postgresOperationError(error, this.where);
    }
    return () => {
      remove();
      if (!this.#hub.listening) void this.#serial(() => this.#stop()).catch(() => {});
    };
  }

  /** Stops listening (the store is closing): the connection goes back to the pool. */
  async close(): Promise<void> {
    this.#hub.clear();
    await this.#serial(() => this.#stop()).catch(() => {});
  }

  // Starting and stopping never overlap: a listen during a stop waits, then connects again.
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(work, work);
    this.#tail = next.catch(() => {});
    return next;
  }

  async #start(): Promise<void> {
    if (this.#client || !this.#hub.listening) return;
    const client = await this.pool.connect();
    const onNotification = (message: Notification) => {
      if (message.channel === this.#channel && message.payload !== undefined) this.#receive(message.payload);
    };
    // A lost connection: the next listen connects again (signals sent meanwhile are lost, as with nobody listening).
    const onError = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      this.#release(client, true);
    };
    client.on('notification', onNotification);
    client.on('error', onError);
    // The pool hands this connection to other queries later: the handlers go when it goes back (without
    // this, each listen left two on it, and a later listen on the same connection got every signal twice).
    this.#handlers.set(client, () => {
      client.off('notification', onNotification);
      client.off('error', onError);
    });
    try {
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      this.#release(client, true);
      throw error;
    }
    this.#client = client;
  }

  async #stop(): Promise<void> {
    const client = this.#client;
    if (!client || this.#hub.listening) return;
    this.#client = undefined;
    try {
      await client.query(`UNLISTEN ${this.#channel}`);
      this.#release(client);
    } catch (error) {
      this.#release(client, error instanceof Error ? error : true);
    }
  }

  /** Gives `client` back to the pool (destroyed with `destroy`), without this listener's handlers. */
  #release(client: PoolClient, destroy?: Error | boolean): void {
    this.#handlers.get(client)?.();
    this.#handlers.delete(client);
    client.release(destroy);
  }

  #receive(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return; // Not ours: another program notified on the channel.
    }
    const { runId, piece } = envelope;
    if (typeof runId !== 'string') return;
    if (piece) {
      const text = this.#assemble(piece);
      if (text !== undefined) this.#receive(text);
      return;
    }
    try {
      if (envelope.signal) this.#hub.dispatch(runId, checkSignal(envelope.signal));
    } catch {
      // A malformed signal is dropped: a listener never sees it.
    }
  }

  #assemble(piece: NonNullable<Envelope['piece']>): string | undefined {
    const { id, index, count, text } = piece;
    if (typeof id !== 'string' || !Number.isInteger(count) || count < 1 || count > 10_000) return undefined;
    let pieces = this.#partial.get(id);
    if (!pieces) {
      // Pieces of a signal arrive together; a bound keeps a stream of broken ones from growing the map.
      if (this.#partial.size >= MAX_PARTIAL) this.#partial.delete(this.#partial.keys().next().value as string);
      pieces = new Array<string>(count);
      this.#partial.set(id, pieces);
    }
    if (!Number.isInteger(index) || index < 0 || index >= pieces.length || typeof text !== 'string') return undefined;
    pieces[index] = text;
    for (let at = 0; at < pieces.length; at++) if (pieces[at] === undefined) return undefined;
    this.#partial.delete(id);
    return pieces.join('');
  }
}
