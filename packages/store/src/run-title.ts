import { MAX_TITLE_CHARS } from '@bridle/protocol';

/** How many characters of a prompt's first line a store reads back to make a title (the rest is cut anyway). */
export const TITLE_LINE_CHARS = 2 * MAX_TITLE_CHARS;

/**
 * The text a run's title comes from: its first `run_start`'s `prompt`, or the last message of its `messages`
 * when that is the user's (a session's next turn). The SQL stores compute the same in their own dialect.
 */
export function promptOf(runStart: { prompt?: unknown; messages?: unknown }): string | undefined {
  if (typeof runStart.prompt === 'string') return runStart.prompt;
  const messages = runStart.messages;
  if (!Array.isArray(messages)) return undefined;
  const last = messages.at(-1) as { role?: unknown; content?: unknown } | undefined;
  return last?.role === 'user' && typeof last.content === 'string' ? last.content : undefined;
}

/** The first line of `text` after its leading blanks (spaces, tabs, line breaks): what `search` matches. */
export function firstLine(text: string): string {
  // Most prompts start with their text: no regular expression then.
  const first = text.charCodeAt(0);
  const start = first === 32 || first === 9 || first === 10 || first === 13 ? text.replace(/^[ \t\n\r]+/, '') : text;
  const end = start.indexOf('\n');
  return end === -1 ? start : start.slice(0, end);
}

/** A title from a first line (as read back, at least {@link MAX_TITLE_CHARS} long when longer): trailing blanks cut. */
export function titleOf(line: string | null | undefined): string | undefined {
  if (line === null || line === undefined) return undefined;
  const title = line.replace(/[ \t\r]+$/, '').slice(0, MAX_TITLE_CHARS);
  return title === '' ? undefined : title;
}

/** Lower case of ASCII letters only, as SQLite's `lower()` does (so the three stores match alike). */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * The title of a prompt, by the rule of `RunSummary.title` (the one the stores and the console use): its first
 * line after leading blank lines, trailing blanks cut, at most {@link MAX_TITLE_CHARS} characters; undefined for
 * a blank prompt. `bridle chat` titles its sessions with it.
 */
export function promptTitle(prompt: string): string | undefined {
  return titleOf(firstLine(prompt).slice(0, TITLE_LINE_CHARS));
}
