import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Environment } from './default-model-id';

/**
 * The user's Bridle config folder: `$XDG_CONFIG_HOME/bridle` when `XDG_CONFIG_HOME` is an absolute
 * path (the XDG rule: a relative one is ignored), else `~/.config/bridle`. It holds `config.json`
 * (always trusted) and `trusted.json` (the folders the user trusted). Read from the shell's
 * environment, never from a folder's `.env`.
 */
export function bridleConfigDir(env: Environment = process.env): string {
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, 'bridle');
  const home = env.HOME?.trim() || homedir();
  return join(home, '.config', 'bridle');
}
