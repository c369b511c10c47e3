import { Command } from 'commander';
import type { ToolsFlags } from '../actions/tools-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';

/** `bridle tools`: the tools an agent gets with these flags. */
export function toolsCommand(context: CommandContext): Command {
  const command = new Command('tools').description(
    'List the tools an agent gets with these flags (skills, -w, --allow-command, --mcp), and which need approval',
  );
  addAgentFlags(command)
    .option('--json', 'one JSON object per tool: { name, description, readOnly, requiresApproval, parameters }')
    .action(async (flags: ToolsFlags) => {
      context.setExitCode(await (await import('../actions/tools-action')).toolsAction(context, flags));
    });
  return command;
}

/** `bridle skills`: the built-in skills. */
export function skillsCommand(context: CommandContext): Command {
  return new Command('skills')
    .description('List the built-in skills (--skill NAME) and their tools; a folder with a SKILL.md works too')
    .option('--json', 'one JSON object per skill: { name, description, tools }')
    .action(async (flags: { json?: boolean }) => {
      context.setExitCode(await (await import('../actions/tools-action')).skillsAction(context, flags));
    });
}
