import { Command } from 'commander';
import type { SteerFlags } from '../actions/steer-action';
import type { CommandContext } from '../command-context';
import { addProjectFlags } from '../project-flags';
import { STORE_FLAG_HELP } from '../store-flag';

const SERVER_HELP =
  'ask this Bridle server instead of the store (e.g. http://127.0.0.1:3000; token: $BRIDLE_API_TOKEN)';

/** `bridle steer <runId> <text>`: adds a user message to a run that runs elsewhere (or waits for approval). */
export function steerCommand(context: CommandContext): Command {
  const command = new Command('steer')
    .description('Add a user message to a running run (wherever it runs); a paused run keeps it for its resume')
    .argument('<runId>', 'the run (bridle runs lists them)')
    .argument('<text>', 'the message');
  addProjectFlags(command)
    .option('--store <url>', STORE_FLAG_HELP)
    .option('--server <url>', SERVER_HELP)
    .action(async (runId: string, text: string, flags: SteerFlags) => {
      const { steerAction } = await import('../actions/steer-action');
      context.setExitCode(await steerAction(context, runId, { kind: 'input', content: text }, flags));
    });
  return command;
}

/** `bridle cancel <runId>`: stops a run wherever it runs (it ends `aborted`, the journal says who cancelled). */
export function cancelCommand(context: CommandContext): Command {
  const command = new Command('cancel')
    .description('Cancel a run wherever it runs: it ends aborted, and its journal says who cancelled it')
    .argument('<runId>', 'the run (bridle runs lists them)');
  addProjectFlags(command)
    .option('--store <url>', STORE_FLAG_HELP)
    .option('--server <url>', SERVER_HELP)
    .action(async (runId: string, flags: SteerFlags) => {
      const { steerAction } = await import('../actions/steer-action');
      context.setExitCode(await steerAction(context, runId, { kind: 'cancel' }, flags));
    });
  return command;
}
