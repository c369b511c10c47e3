import type { Readable, Writable } from 'node:stream';
import type { StoredSession } from '@bridle/protocol';
import { isCancel, select } from '@clack/prompts';
import type { CliIO } from './cli-io';
import { sessionTitle, shortTitle } from './session-title';

/**
 * Asks the person on the terminal which session to resume (arrow keys and Enter; Esc or Ctrl-C cancels): each
 * shown by its title, message count and last update. Drawn on stderr, read from stdin. Resolves with the session
 * picked, or undefined when cancelled.
 */
export async function pickSession(io: CliIO, sessions: StoredSession[]): Promise<StoredSession | undefined> {
  const chosen = await select({
    message: 'Resume which session of this folder?',
    options: sessions.map((session) => ({
      value: session.id,
      label: shortTitle(sessionTitle(session)) || '(untitled)',
      hint: `${session.messages.length} messages · ${session.updatedAt.slice(0, 16).replace('T', ' ')}`,
    })),
    input: io.stdin as Readable,
    output: io.stderr as Writable,
    maxItems: 10,
  });
  if (isCancel(chosen)) return undefined;
  return sessions.find((session) => session.id === chosen);
}
