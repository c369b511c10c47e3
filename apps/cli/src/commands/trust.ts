import { Command } from 'commander';
import type { TrustFlags } from '../actions/trust-action';
import type { CommandContext } from '../command-context';

/** `bridle trust [DIR]`, `--list`, `--revoke DIR`: the folders whose config files Bridle may use. */
export function trustCommand(context: CommandContext): Command {
  return new Command('trust')
    .description("Trust a folder's bridle.config.json and .mcp.json (as they are now), list or forget trusted folders")
    .argument('[dir]', 'the folder to trust (default: the working directory)')
    .option('--list', 'list the folders you answered for (trusted or declined)')
    .option('--revoke <dir>', 'forget a folder: its files are ignored again until you trust it')
    .addHelpText(
      'after',
      "\nA folder's files can change the model and endpoint, run programs and approve tools, so they apply only in a\ntrusted folder. The answers are kept in $XDG_CONFIG_HOME/bridle/trusted.json (default ~/.config/bridle), by the\nfolder's path and the files' digest: an edited file asks again.",
    )
    .action(async (dir: string | undefined, flags: TrustFlags) => {
      context.setExitCode(await (await import('../actions/trust-action')).trustAction(context, dir, flags));
    });
}
