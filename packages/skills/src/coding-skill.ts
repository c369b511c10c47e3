import { ConfigError, type Sandbox } from '@bridle/protocol';
import { shellTool } from '@bridle/sandbox';
import { commandTool, type Workspace, workspaceTools } from '@bridle/workspace-tools';
import { defineSkill, type Skill } from './skill';

/** A command preset as `commandTool` takes it (see `@bridle/workspace-tools`). */
export type CommandPresets = Parameters<typeof commandTool>[1];

/** Options of {@link codingSkill}. */
export interface CodingSkillOptions {
  /** The folder the agent works in (path jail); from `Workspace.open(root)`. */
  workspace: Workspace;
  /** Programs the agent may run by preset name (no shell); none by default. */
  commands?: CommandPresets;
  /** Only the reading tools (no write_file / edit_file). Default false. */
  readOnly?: boolean;
  /**
   * Mark `write_file`, `edit_file` and the command tool `requiresApproval`, so the loop asks its
   * `approve` hook before each call (and denies them when there is none). Default true.
   */
  requireApproval?: boolean;
  /**
   * A sandbox over the workspace's folder (`openBubblewrapSandbox` of `@bridle/sandbox`): adds the `shell`
   * tool (`bash -c` inside it; approval as for commands; not with `readOnly`) and runs presets marked
   * `sandbox: true` in it.
   */
  sandbox?: Sandbox;
  /** With a `sandbox`: offer the `shell` tool. Default true (false: only presets marked `sandbox: true` use it). */
  shell?: boolean;
}

function instructionsFor(
  commandNames: readonly string[],
  commandToolName: string,
  readOnly: boolean,
  shell: { name: string; network: boolean } | undefined,
): string {
  const lines = [
    'You are a careful software engineer working inside one project folder (paths are relative to it).',
    '- Look before you change: list_directory, find_files and search_text to find code, read_file to read it.',
    readOnly
      ? '- You cannot change files here: explain the change you would make instead.'
      : '- Change files with edit_file (exact oldText to newText, small unique snippets) or write_file for new files. Never rewrite a whole file to change a few lines.',
  ];
  if (commandNames.length > 0) {
    lines.push(
      `- Run programs only through the ${commandToolName} tool, by preset: ${commandNames.join(', ')}. Run the tests after a change and read their output.`,
    );
  }
  if (shell !== undefined) {
    lines.push(
      `- Run shell commands (git status, git diff, ls, grep, the tests) with the ${shell.name} tool. It runs in a sandbox: only the workspace is writable (not .git), ${shell.network ? 'the network is available' : 'there is no network'}, and its result lists what the sandbox refused.`,
    );
  }
  lines.push('- When done, say what you changed and how you checked it.');
  return lines.join('\n');
}

/**
 * A coding agent: the workspace file tools, plus a command tool when presets are given. Writes, edits and
 * commands require approval unless `requireApproval: false` (reading, listing and searching never do).
 */
export function codingSkill(options: CodingSkillOptions): Skill {
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.workspace !== 'object' ||
    options.workspace === null
  ) {
    throw new ConfigError(
      'codingSkill needs { workspace }: open one with Workspace.open(root) from @bridle/workspace-tools.',
    );
  }
  const readOnly = options.readOnly ?? false;
  const commands = options.commands ?? {};
  const names = Object.keys(commands);
  const requireApproval = options.requireApproval ?? true;
  const tools = workspaceTools(options.workspace, { readOnly }).map((tool) =>
    requireApproval && !tool.readOnly ? { ...tool, requiresApproval: true } : tool,
  );
  const command =
    names.length > 0
      ? commandTool(options.workspace, commands, {
          requiresApproval: requireApproval,
          ...(options.sandbox ? { sandbox: options.sandbox } : {}),
        })
      : undefined;
  if (command) tools.push(command);
  const shell =
    options.sandbox && !readOnly ? shellTool(options.sandbox, { requiresApproval: requireApproval }) : undefined;
  if (shell) tools.push(shell);
  return defineSkill({
    name: 'coding',
    description: options.sandbox
      ? 'Reads, searches and edits files in a workspace and runs shell commands in a sandbox.'
      : 'Reads, searches and edits files in a workspace and runs allowed commands.',
    instructions: instructionsFor(
      names,
      command?.name ?? '',
      readOnly,
      shell && options.sandbox ? { name: shell.name, network: options.sandbox.network } : undefined,
    ),
    tools,
  });
}
