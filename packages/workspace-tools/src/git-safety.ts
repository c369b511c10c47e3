import { basename } from 'node:path';

/**
 * Options put before the arguments of every preset whose executable is `git`: git's own safety
 * settings, given on the command line (git's protected configuration, which a repository's files
 * cannot override).
 * - `safe.bareRepository=explicit`: a bare repository found by discovery (a planted `HEAD`, `objects/`,
 *   `refs/` and `config` in any folder) is refused instead of obeyed;
 * - `core.fsmonitor=false`: no file-system monitor command runs on `status`, `diff`, `add`;
 * - `core.hooksPath=/dev/null`: no hook runs (`post-index-change` runs on a plain `status`);
 * - `core.pager=cat`: no pager command.
 */
export const GIT_SAFETY_ARGUMENTS: readonly string[] = [
  '-c',
  'safe.bareRepository=explicit',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
];

/**
 * Environment set for git presets: no system-wide configuration (`/etc/gitconfig`), never a prompt for
 * credentials. The user's global configuration is read only when the preset passes `HOME` through.
 */
export const GIT_SAFETY_ENVIRONMENT: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

/** Whether a resolved executable is git (`/usr/bin/git`, `git.exe`). */
export function isGit(executable: string): boolean {
  return /^git(\.exe)?$/i.test(basename(executable));
}
