import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkspaceError } from './workspace-error';

/**
 * What makes a directory a git repository to git itself, whatever its name: git's discovery
 * (`is_git_directory` in setup.c) accepts any directory holding `HEAD`, `objects/` and `refs/`, and then
 * obeys the `config` beside them (`core.fsmonitor`, `core.hooksPath`, filters: commands that run).
 */
export const GIT_REPOSITORY_LAYOUT = ['HEAD', 'objects', 'refs'] as const;

/**
 * Refuses a write to `segments` (relative to `root`) when a directory on its way (the root included)
 * holds, or would hold once the write creates its next component, all of {@link GIT_REPOSITORY_LAYOUT}:
 * a model could otherwise plant a bare repository whose `config` runs a command the next time anyone
 * runs git there (a `git status` preset, a shell prompt), or write into one that exists. Names are
 * compared case-insensitively (on macOS `head` is `HEAD`). Checked before anything is created; writes of
 * one workspace are serialized, so two concurrent writes cannot complete a layout together.
 */
export async function refuseRepositoryLayout(root: string, segments: readonly string[]): Promise<void> {
  let directory = root;
  for (let depth = 0; depth < segments.length; depth++) {
    const next = segments[depth]!.toLowerCase();
    const present = await Promise.all(
      GIT_REPOSITORY_LAYOUT.map((marker) => next === marker.toLowerCase() || exists(join(directory, marker))),
    );
    if (present.every(Boolean)) {
      const shown = depth === 0 ? 'the workspace root' : `"${segments.slice(0, depth).join('/')}"`;
      const already = (await Promise.all(GIT_REPOSITORY_LAYOUT.map((marker) => exists(join(directory, marker))))).every(
        Boolean,
      );
      throw new WorkspaceError(
        'protected_path',
        already
          ? `Refused: ${shown} is a git repository directory (it holds HEAD, objects/ and refs/); writing "${segments.join('/')}" there could plant git configuration or hooks that run commands.`
          : `Refused: writing "${segments.join('/')}" would give ${shown} HEAD, objects/ and refs/ together, which git treats as a repository and whose config can run commands. Use other names.`,
      );
    }
    directory = join(directory, segments[depth]!);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
