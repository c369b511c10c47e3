import { Command } from 'commander';
import type { DemoFlags } from '../actions/demo-action';
import type { CommandContext } from '../command-context';

/** `bridle demo`: an offline, scripted coding session on a temporary copy of the sample project. */
export function demoCommand(context: CommandContext): Command {
  return new Command('demo')
    .description('Watch a scripted coding agent fix a bug in a sample project (offline, no API key)')
    .option('--keep', 'keep the temporary copy of the project and print where it is')
    .option('--trace <file>', 'also write every run event to this file as JSON lines')
    .action(async (flags: DemoFlags) => {
      context.setExitCode(await (await import('../actions/demo-action')).demoAction(context, flags));
    });
}
