import { DEFAULT_TENANT, type Message } from '@bridle/protocol';

/** One conversation. */
export interface Session {
  readonly id: string;
  /** The transcript so far (always passes `assertTranscript`, or is empty). */
  messages: Message[];
  createdAt: number;
  updatedAt: number;
  /** The skill of the session's latest turn (a paused run resumes with it). */
  skill?: string;
  /** The run of this session that waits for approval: the session takes no new prompt until it is decided. */
  pendingRunId?: string;
  /** The tenant the session belongs to (absent: tenant `default`); only its keys see or continue it. */
  tenant?: string;
}

/** One row of {@link SessionStore.list}: a session without its messages. */
export interface SessionListing {
  id: string;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
  /** The session's tenant (absent: tenant `default`). */
  tenant?: string;
}

/**
 * Where sessions live. The default is {@link MemorySessionStore}; a durable store (Redis, SQL) implements
 * the same four methods. Methods may be synchronous or return promises.
 */
export interface SessionStore {
  /** The session, or undefined when unknown or expired. */
  get(id: string): Session | undefined | Promise<Session | undefined>;
  /** Stores (creates or replaces) a session. */
  set(session: Session): void | Promise<void>;
  /** Forgets a session; true when it existed. */
  delete(id: string): boolean | Promise<boolean>;
  /**
   * Sessions, most recently updated first; at most `limit`, only those updated before `before` (ms) when
   * given, only those of `tenant` when given (tenant `default` also matches sessions that name none).
   */
  list?(query: { limit: number; before?: number; tenant?: string }): SessionListing[] | Promise<SessionListing[]>;
  /** Releases timers or connections; called on shutdown. */
  close?(): void | Promise<void>;
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** Most sessions kept; the least recently used is evicted beyond. */
  maxSessions: number;
  /** A session not used for this long is gone. */
  idleMs: number;
  /** Characters (JSON of the transcripts) held by all sessions together; least recently used evicted beyond. Default unbounded. */
  maxChars?: number;
  /** Clock in ms; default `Date.now`. */
  now?: () => number;
}

/**
 * The JSON length of each message object, measured once: a session's turn would otherwise encode its whole
 * transcript again on every save and every size check (quadratic over a long session). A message is not
 * changed once it is in a transcript (core and the routes build new ones).
 */
const messageChars = new WeakMap<Message, number>();

/** The size of a transcript: the length of its messages' JSON (what the context budget counts too). */
export function transcriptChars(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    let size = messageChars.get(message);
    if (size === undefined) {
      size = JSON.stringify(message).length;
      messageChars.set(message, size);
    }
    chars += size;
  }
  return chars;
}

/**
 * The JSON length of `messages` for {@link MemorySessionStore}: a transcript that continues the one `previous`
 * held (the same message objects first, as a turn leaves them) adds only its new messages' lengths. Lengths
 * measured before are read from the cache, new ones are not added to it: a WeakMap entry per saved message
 * cost more (its insertion and its weak-key work in every GC) than measuring the turn's few new messages.
 */
function heldChars(messages: readonly Message[], previous: Held | undefined): number {
  let chars = 0;
  let from = 0;
  const before = previous?.session.messages;
  // The same array again may have been changed in place since: it is measured anew.
  if (before !== undefined && before !== messages && before.length <= messages.length) {
    let same = true;
    for (let index = 0; index < before.length; index += 1) {
      if (before[index] !== messages[index]) {
        same = false;
        break;
      }
    }
    if (same) {
      chars = (previous as Held).chars;
      from = before.length;
    }
  }
  for (let index = from; index < messages.length; index += 1) {
    const message = messages[index] as Message;
    chars += messageChars.get(message) ?? JSON.stringify(message).length;
  }
  return chars;
}

/** A session held by {@link MemorySessionStore}: a link of its least-recently-used list. */
interface Held {
  session: Session;
  /** The JSON length of its transcript, measured when it was stored. */
  chars: number;
  /** The session used just before (toward the oldest), and just after (toward the newest). */
  older: Held | undefined;
  newer: Held | undefined;
}

/**
 * Sessions in a `Map` by id, and in a doubly linked list in least-recently-used order: a read or a write
 * touches a session and moves it to the end, so expired sessions are found from the front (amortised O(1)
 * per call) and the eviction victim is always the first one. (A `Map`'s own order served before, but each
 * session deleted at its front left a hole that every later walk from the front stepped over until the next
 * rehash: several microseconds per request with a full store.) Nothing is kept after `idleMs` without use;
 * never more than `maxSessions`, nor more than `maxChars` characters of transcripts together.
 */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Held>();
  /** The least recently used session, and the most recently used one. */
  #oldest: Held | undefined;
  #newest: Held | undefined;
  readonly #max: number;
  readonly #maxChars: number;
  readonly #idleMs: number;
  readonly #now: () => number;
  #total = 0;

  constructor(options: MemorySessionStoreOptions) {
    this.#max = options.maxSessions;
    this.#maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
    this.#idleMs = options.idleMs;
    this.#now = options.now ?? Date.now;
  }

  /** Characters held by all sessions now (JSON of their transcripts). */
  get chars(): number {
    this.#sweep();
    return this.#total;
  }

  /** Sessions held now (after dropping the expired ones). */
  get size(): number {
    this.#sweep();
    return this.#sessions.size;
  }

  get(id: string): Session | undefined {
    this.#sweep();
    const held = this.#sessions.get(id);
    if (!held) return undefined;
    held.session.updatedAt = this.#now();
    this.#unlink(held);
    this.#append(held);
    return held.session;
  }

  set(session: Session): void {
    this.#sweep();
    const previous = this.#sessions.get(session.id);
    const chars = heldChars(session.messages, previous);
    this.#remove(session.id);
    const kept: Session = {
      id: session.id,
      messages: session.messages,
      createdAt: session.createdAt,
      updatedAt: this.#now(),
    };
    if (session.skill !== undefined) kept.skill = session.skill;
    if (session.pendingRunId !== undefined) kept.pendingRunId = session.pendingRunId;
    if (session.tenant !== undefined) kept.tenant = session.tenant;
    const held: Held = { session: kept, chars, older: undefined, newer: undefined };
    this.#sessions.set(session.id, held);
    this.#append(held);
    this.#total += chars;
    // The session just stored is the newest, so it is the last to go.
    while (this.#sessions.size > this.#max || (this.#total > this.#maxChars && this.#sessions.size > 1)) {
      this.#remove((this.#oldest as Held).session.id);
    }
  }

  delete(id: string): boolean {
    return this.#remove(id);
  }

  /** Newest first; listing does not count as use. */
  list(query: { limit: number; before?: number; tenant?: string }): SessionListing[] {
    this.#sweep();
    const rows: SessionListing[] = [];
    for (let held = this.#newest; held !== undefined; held = held.older) {
      const session = held.session;
      if (rows.length >= query.limit) break;
      if (query.before !== undefined && session.updatedAt >= query.before) continue;
      if (query.tenant !== undefined && (session.tenant ?? DEFAULT_TENANT) !== query.tenant) continue;
      const { id, messages, createdAt, updatedAt } = session;
      rows.push({
        id,
        messageCount: messages.length,
        createdAt,
        updatedAt,
        ...(session.tenant === undefined ? {} : { tenant: session.tenant }),
      });
    }
    return rows;
  }

  #remove(id: string): boolean {
    const held = this.#sessions.get(id);
    if (held === undefined) return false;
    this.#sessions.delete(id);
    this.#unlink(held);
    this.#total -= held.chars;
    return true;
  }

  /** Puts `held` at the end of the list (the most recently used). */
  #append(held: Held): void {
    held.older = this.#newest;
    held.newer = undefined;
    if (this.#newest === undefined) this.#oldest = held;
    else this.#newest.newer = held;
    this.#newest = held;
  }

  /** Takes `held` out of the list. */
  #unlink(held: Held): void {
    if (held.older === undefined) this.#oldest = held.newer;
    else held.older.newer = held.newer;
    if (held.newer === undefined) this.#newest = held.older;
    else held.newer.older = held.older;
    held.older = undefined;
    held.newer = undefined;
  }

  #sweep(): void {
    const cutoff = this.#now() - this.#idleMs;
    while (this.#oldest !== undefined && this.#oldest.session.updatedAt <= cutoff) {
      this.#remove(this.#oldest.session.id);
    }
  }
}
