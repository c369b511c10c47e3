import { Command } from 'commander';
import type { McpServeFlags } from '../actions/mcp-serve-action';
import { BUILT_IN_SKILLS } from '../built-in-skills';
import type { CommandContext } from '../command-context';
import { type CliCommandPreset, parseCommandPreset } from '../command-preset';
import { collect } from '../parse-options';

function collectPreset(value: string, previous: Record<string, CliCommandPreset> | undefined) {
  const { name, preset } = parseCommandPreset(value);
  return { ...previous, [name]: preset };
}

/** `bridle mcp-serve`: Bridle's tools, served to any MCP client over stdio. */
export function mcpServeCommand(context: CommandContext): Command {
  return new Command('mcp-serve')
    .description(
      "Serve Bridle's tools (jailed workspace tools, command presets, clock, calculator, http_fetch) to an MCP client over stdio",
    )
    .option(
      '-s, --skill <name-or-dir>',
      `the skill whose tools to serve, repeatable: ${BUILT_IN_SKILLS.join(', ')} or a SKILL.md folder (default: assistant)`,
      collect,
    )
    .option('-w, --workspace <dir>', 'folder the tools may read and edit (adds the coding skill)')
    .option(
      '--allow-command <name=command>',
      'a command preset the client may run in the workspace, repeatable (as on bridle run), e.g. test="npm test"',
      collectPreset,
    )
    .addHelpText(
      'after',
      '\nStdout carries the protocol: messages go to stderr. Refusals (a path outside the workspace, invalid arguments)\nare isError results. Example for Claude Code: claude mcp add bridle -- bridle mcp-serve -w .',
    )
    .action(async (flags: McpServeFlags) => {
      context.setExitCode(await (await import('../actions/mcp-serve-action')).mcpServeAction(context, flags));
    });
}
