import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { Workspace } from '@bridle/workspace-tools';

/**
 * Opens `BRIDLE_WORKSPACE` (resolved from `cwd`) as the CLI opens `--workspace`: an existing folder that
 * is neither the root of the file system nor the home folder, however spelled. Throws `ConfigError`.
 */
export async function openWorkspace(path: string, cwd: string): Promise<Workspace> {
  const root = resolve(cwd, path);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new ConfigError(`BRIDLE_WORKSPACE=${path} is not a folder: give an existing directory.`);
  }
  const real = await realpath(root);
  const home = await realpath(homedir()).catch(() => undefined);
  if (dirname(real) === real || real === home) {
    throw new ConfigError(
      `BRIDLE_WORKSPACE=${path} is ${real === home ? 'your home folder' : 'the root of the file system'} (${real}): the agent could read and change everything in it. Give the project folder instead.`,
    );
  }
  return Workspace.open(root);
}
