import { displayText } from '@bridle/models';
import type { StoredSession } from '@bridle/protocol';
import { promptTitle } from '@bridle/store';

/**
 * A chat session's title: the title (`promptTitle` of @bridle/store, the rule of run titles) of its first user
 * message; undefined for a session without one. Read from the messages (which the session's seal covers).
 */
export function sessionTitle(session: Pick<StoredSession, 'messages'>): string | undefined {
  const first = session.messages.find((message) => message.role === 'user');
  return typeof first?.content === 'string' ? promptTitle(first.content) : undefined;
}

/** A title for one terminal line: control characters escaped, cut to `max` characters with `…`. */
export function shortTitle(title: string | undefined, max = 60): string {
  if (title === undefined) return '';
  const shown = displayText(title);
  return shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
}
