import type { ServerConfig } from './server-config';
import { ServerError } from './server-error';
import { type Session, transcriptChars } from './session-store';

/** Throws a 413 naming `BRIDLE_MAX_PROMPT_CHARS` when `prompt` is longer; `label` names the field. */
export function checkPromptLength(config: ServerConfig, prompt: string, label = 'The prompt'): void {
  if (prompt.length > config.maxPromptChars) {
    throw new ServerError(
      'payload_too_large',
      `${label} has ${prompt.length} characters, more than BRIDLE_MAX_PROMPT_CHARS=${config.maxPromptChars}: shorten it, or raise the setting.`,
    );
  }
}

/**
 * Throws a 413 naming `BRIDLE_MAX_SESSION_CHARS` when adding `prompt` would take the session's
 * transcript (the length of its messages' JSON) past the limit. A run adds its answer and tool results
 * after this check, so a session may end a turn somewhat over the limit; its next turn is refused.
 */
export function checkSessionRoom(config: ServerConfig, session: Session, prompt: string): void {
  if (session.messages.length === 0) return;
  const held = transcriptChars(session.messages);
  if (held + transcriptChars([{ role: 'user', content: prompt }]) > config.maxSessionChars) {
    throw new ServerError(
      'payload_too_large',
      `Session ${session.id} holds ${held} characters: this turn would take it past BRIDLE_MAX_SESSION_CHARS=${config.maxSessionChars}. Start a new session (omit sessionId).`,
    );
  }
}
