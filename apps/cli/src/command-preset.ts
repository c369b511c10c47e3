import type { WORKSPACE_PATH_FORMAT } from '@bridle/workspace-tools';
import { InvalidArgumentError } from 'commander';
import { parse } from 'shell-quote';

/**
 * `@bridle/workspace-tools`' path format, checked against its type: the package itself is not loaded for this
 * (parsing flags happens on every start, `bridle --help` too).
 */
const PATH_FORMAT: typeof WORKSPACE_PATH_FORMAT = 'workspace-path';

/** A placeholder's parameter: a path inside the workspace, jailed like `read_file` paths. */
export interface PlaceholderParameter {
  type: 'string';
  format: typeof WORKSPACE_PATH_FORMAT;
  description: string;
}

/** A command preset as `commandTool` of `@bridle/workspace-tools` takes it. */
export interface CliCommandPreset {
  executable: string;
  args: string[];
  /**
   * Trailing `{name}` placeholders become parameters the model fills, in order. Each is a workspace
   * path (`format: 'workspace-path'`): an absolute path, `..`, a symlink or a protected path is refused
   * at each call, so a placeholder never lets the program read a file outside the workspace.
   */
  params?: Record<string, PlaceholderParameter>;
}

const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const PLACEHOLDER = /^\{([a-zA-Z][a-zA-Z0-9_]{0,63})\}$/;

/**
 * Parses `--allow-command NAME=CMD` into a preset. `CMD` is split like a shell would split words
 * (quotes respected) but is never run by a shell: operators (`|`, `&&`, `>`, ...), globs, comments and
 * `$VARIABLES` are refused. Trailing `{name}` words become workspace-path parameters: `node={script}`
 * lets the model run `node <script>` for a file inside the workspace (never `/etc/passwd` or `../x`). Throws commander's `InvalidArgumentError` (a usage error) naming the problem.
 */
export function parseCommandPreset(value: string): { name: string; preset: CliCommandPreset } {
  const equals = value.indexOf('=');
  const name = equals < 0 ? '' : value.slice(0, equals).trim();
  const command = equals < 0 ? '' : value.slice(equals + 1).trim();
  if (!NAME.test(name) || command === '') {
    throw new InvalidArgumentError(
      `expected NAME=COMMAND such as test="npm test" (NAME: a letter, then letters, digits, _ or -), got "${value}".`,
    );
  }
  const words: string[] = [];
  for (const entry of parse(command, (variable) => `\u0000${variable}`)) {
    if (typeof entry !== 'string' || entry.includes('\u0000')) {
      throw new InvalidArgumentError(
        `"${command}" uses shell syntax (operators, globs, comments or $variables); commands run without a shell: give one program and its arguments.`,
      );
    }
    words.push(entry);
  }
  const [executable, ...rest] = words;
  if (executable === undefined || executable === '') throw new InvalidArgumentError(`no program given in "${value}".`);
  const args: string[] = [];
  const params: Record<string, PlaceholderParameter> = {};
  for (const word of rest) {
    const placeholder = PLACEHOLDER.exec(word);
    if (placeholder) {
      const param = placeholder[1] as string;
      if (param in params) throw new InvalidArgumentError(`the placeholder {${param}} appears twice in "${value}".`);
      params[param] = {
        type: 'string',
        format: PATH_FORMAT,
        description: `${param}: a path inside the workspace (relative; absolute paths and .. are refused)`,
      };
    } else if (Object.keys(params).length > 0) {
      throw new InvalidArgumentError(`placeholders must come last in "${value}": "${word}" follows one.`);
    } else args.push(word);
  }
  return { name, preset: { executable, args, ...(Object.keys(params).length > 0 ? { params } : {}) } };
}
