import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Message, StoredSession } from '@bridle/protocol';
import { canonicalJson } from '@bridle/protocol/internal';

const PREFIX = 'hmac-sha256:';

function signatureOf(key: Uint8Array, id: string, folder: string, messages: readonly Message[]): string {
  const text = canonicalJson({ bridle: 'session/1', id, folder, messages });
  return `${PREFIX}${createHmac('sha256', key).update(text).digest('hex')}`;
}

/**
 * What `bridle chat` adds to a session's `meta` when it saves it: the canonical project folder it belongs
 * to and an HMAC (the user's decision key) over the session's id, that folder and its messages.
 */
export function sessionSeal(
  key: Uint8Array,
  session: Pick<StoredSession, 'id' | 'messages'>,
  folder: string,
): { folder: string; signature: string } {
  return { folder, signature: signatureOf(key, session.id, folder, session.messages) };
}

/**
 * True when this user's `bridle chat` wrote the session, for this folder, and nothing changed it since: its
 * `meta` carries `folder` and a signature that verifies with `key`. A session planted in a store (a cloned
 * folder's `.bridle/bridle.db`, another user's database) is not. Never throws.
 */
export function isOwnSession(key: Uint8Array, session: StoredSession, folder: string): boolean {
  const meta = session.meta;
  if (meta?.folder !== folder || typeof meta.signature !== 'string') return false;
  if (!Array.isArray(session.messages)) return false;
  const expected = Buffer.from(signatureOf(key, session.id, folder, session.messages));
  const given = Buffer.from(meta.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
