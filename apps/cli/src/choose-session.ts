import { randomUUID } from 'node:crypto';
import { displayText } from '@bridle/models';
import { ConfigError, type Store, type StoredSession } from '@bridle/protocol';

/** How many of a store's newest sessions `--continue` and `--resume` look through for this folder's own. */
export const SESSION_CANDIDATES = 50;

/** Options of {@link chooseSession}. */
export interface ChooseSessionOptions {
  store: Store;
  /** `--session <id>`: that session (created when new). */
  session?: string;
  /** `--continue`: the newest of this folder's own sessions. */
  continue?: boolean;
  /** `--resume <id>` (that session, which must exist) or `--resume` alone (`pick` one of this folder's). */
  resume?: string | true;
  /** Whether this user's `bridle chat` wrote the session in this folder (see `isOwnSession`). */
  own: (session: StoredSession) => boolean;
  /** Lets the person pick one of `sessions` (newest first); undefined when they cancel. Absent without a terminal. */
  pick?: (sessions: StoredSession[]) => Promise<StoredSession | undefined>;
}

/** What {@link chooseSession} chose; `cancelled` when the person left the picker. */
export type ChosenSession =
  | { session: StoredSession; skipped: number; nothingToResume?: boolean }
  | { cancelled: true };

/**
 * The session `bridle chat` opens: `--session <id>` (the user named it; created when new), `--resume <id>` (it
 * must exist), `--resume` (a picker of this folder's own sessions among the newest 50; a `ConfigError` without a
 * terminal, asking for the id), `--continue` (the newest own one), else a new one. `skipped` counts newer
 * sessions `--continue` passed over (not this user's in this folder).
 */
export async function chooseSession(options: ChooseSessionOptions): Promise<ChosenSession> {
  const { store } = options;
  const now = new Date().toISOString();
  const fresh = (id: string): StoredSession => ({ id, messages: [], createdAt: now, updatedAt: now });
  if (options.session !== undefined)
    return { session: (await store.getSession(options.session)) ?? fresh(options.session), skipped: 0 };
  if (typeof options.resume === 'string') {
    const found = await store.getSession(options.resume);
    if (found === undefined)
      throw new ConfigError(
        `No session ${displayText(options.resume)} in the store: run bridle chat --resume without an id on a terminal to pick one of this folder's.`,
      );
    return { session: found, skipped: 0 };
  }
  if (options.resume === true) {
    if (options.pick === undefined)
      throw new ConfigError(
        'bridle chat --resume without an id shows a picker on a terminal, and there is none here: pass the session id (bridle chat --resume <id>), or --continue for the newest.',
      );
    const own = (await ownSessions(store, options.own)).filter((session) => session.messages.length > 0);
    if (own.length === 0) return { session: fresh(randomUUID()), skipped: 0, nothingToResume: true };
    const picked = await options.pick(own);
    return picked === undefined ? { cancelled: true } : { session: picked, skipped: 0 };
  }
  let skipped = 0;
  if (options.continue) {
    for (const summary of await store.listSessions({ limit: SESSION_CANDIDATES })) {
      const found = await store.getSession(summary.id);
      if (found !== undefined && options.own(found)) return { session: found, skipped };
      skipped++;
    }
  }
  return { session: fresh(randomUUID()), skipped };
}

/** This folder's own sessions among the store's newest {@link SESSION_CANDIDATES}, newest first. */
export async function ownSessions(store: Store, own: (session: StoredSession) => boolean): Promise<StoredSession[]> {
  const sessions: StoredSession[] = [];
  for (const summary of await store.listSessions({ limit: SESSION_CANDIDATES })) {
    const found = await store.getSession(summary.id);
    if (found !== undefined && own(found)) sessions.push(found);
  }
  return sessions;
}
