import { loadProject, type ProjectSettings } from '@bridle/models';
import { askTrust, canAskTrust } from './ask-trust';
import type { CommandContext } from './command-context';
import type { ProjectFlags } from './project-flags';

/**
 * Loads the user's settings files through workspace trust for a command (see `loadProject` of
 * `@bridle/models`): `--env-file`, the folders' `.env` (API keys only), the user's config, and the
 * folders' `bridle.config.json` / `.mcp.json` once trusted (the prompt on a terminal, `--trust-project`,
 * or an earlier answer). The folders are the working directory and `workspace` (`-w`).
 */
export async function loadCliProject(
  context: CommandContext,
  flags: ProjectFlags & { workspace?: string },
): Promise<ProjectSettings> {
  const { io, errorStyle } = context;
  return await loadProject({
    cwd: io.cwd,
    env: io.env,
    ...(flags.workspace === undefined ? {} : { workspace: flags.workspace }),
    ...(flags.envFile === undefined ? {} : { envFiles: flags.envFile }),
    ...(flags.trustProject ? { trustProject: true } : {}),
    ...(canAskTrust(io) ? { ask: (review) => askTrust(io, errorStyle, review) } : {}),
    warn: (line) => io.stderr.write(`${errorStyle.yellow(line)}\n`),
  });
}
