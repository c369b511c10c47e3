import { Command } from 'commander';
import type { PermissionsFlags } from '../actions/permissions-action';
import type { CommandContext } from '../command-context';

/** `bridle permissions [--list | --revoke <rule>]`: the approval rules remembered for a project folder. */
export function permissionsCommand(context: CommandContext): Command {
  return new Command('permissions')
    .description('List or revoke the approval rules remembered for this folder (answer a, then y, to remember one)')
    .option('--list', "list this folder's rules: remembered, then from config files (the default)")
    .option('--revoke <rule>', "forget a rule, e.g. --revoke 'edit_file(src/**)': its calls are asked again")
    .option('-w, --workspace <dir>', 'the project folder (default: the working directory), as given to run and chat')
    .option('--json', 'list as one JSON object per rule')
    .addHelpText(
      'after',
      "\nA rule approves calls without a question: edit_file (every edit), edit_file(src/**) (paths matching a glob),\nrun_command(test) (one preset). It never covers a protected path (.git, .env*, .bridle/**). Rules are kept per\nproject folder in $XDG_CONFIG_HOME/bridle/permissions.json (default ~/.config/bridle), never in the project;\nconfig files may list more under permissions.allow (a folder's bridle.config.json only once you trust it).",
    )
    .action(async (flags: PermissionsFlags) => {
      context.setExitCode(await (await import('../actions/permissions-action')).permissionsAction(context, flags));
    });
}
