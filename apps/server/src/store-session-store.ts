import type { Store, StoredSession } from '@bridle/protocol';
import type { Session, SessionListing, SessionStore } from './session-store';

/** The server's fields kept in a stored session's `meta`. */
interface SessionMeta {
  skill?: string;
  pendingRunId?: string;
}

function toSession(stored: StoredSession): Session {
  const meta = (stored.meta ?? {}) as SessionMeta;
  return {
    id: stored.id,
    messages: stored.messages,
    createdAt: Date.parse(stored.createdAt),
    updatedAt: Date.parse(stored.updatedAt),
    ...(typeof meta.skill === 'string' ? { skill: meta.skill } : {}),
    ...(typeof meta.pendingRunId === 'string' ? { pendingRunId: meta.pendingRunId } : {}),
    ...(stored.tenant === undefined ? {} : { tenant: stored.tenant }),
  };
}

/**
 * Sessions in a durable `Store` (SQLite, Postgres): they survive a restart and are shared by every
 * server on the same store. The skill and a pending run travel in the session's `meta`. Nothing here
 * expires; delete sessions with `DELETE /api/sessions/:id`.
 */
export class StoreSessionStore implements SessionStore {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async get(id: string): Promise<Session | undefined> {
    const stored = await this.#store.getSession(id);
    return stored && toSession(stored);
  }

  async set(session: Session): Promise<void> {
    const meta: SessionMeta = {
      ...(session.skill === undefined ? {} : { skill: session.skill }),
      ...(session.pendingRunId === undefined ? {} : { pendingRunId: session.pendingRunId }),
    };
    await this.#store.saveSession({
      id: session.id,
      messages: session.messages,
      createdAt: new Date(session.createdAt).toISOString(),
      updatedAt: new Date(session.updatedAt).toISOString(),
      ...(session.tenant === undefined ? {} : { tenant: session.tenant }),
      ...(Object.keys(meta).length > 0 ? { meta: meta as Record<string, unknown> } : {}),
    });
  }

  delete(id: string): Promise<boolean> {
    return this.#store.deleteSession(id);
  }

  async list(query: { limit: number; before?: number; tenant?: string }): Promise<SessionListing[]> {
    const rows = await this.#store.listSessions({
      limit: query.limit,
      ...(query.tenant === undefined ? {} : { tenant: query.tenant }),
      ...(query.before === undefined ? {} : { before: new Date(query.before).toISOString() }),
    });
    return rows.map((row) => ({
      id: row.id,
      messageCount: row.messageCount,
      createdAt: Date.parse(row.createdAt),
      updatedAt: Date.parse(row.updatedAt),
    }));
  }
}
