import { Command } from 'commander';
import type { RunsFlags } from '../actions/runs-action';
import type { CommandContext } from '../command-context';
import { positiveInteger } from '../parse-options';
import { addProjectFlags } from '../project-flags';
import { STORE_FLAG_HELP } from '../store-flag';

/** `bridle runs`: the runs kept in the store, newest first. */
export function runsCommand(context: CommandContext): Command {
  const command = new Command('runs').description(
    'List the runs kept in the store, newest first: id, status, model, last update',
  );
  addProjectFlags(command)
    .option('--store <url>', STORE_FLAG_HELP)
    .option(
      '--status <status>',
      'only runs with this status: completed, awaiting_approval, running (crashed or live), ...',
    )
    .option('-n, --limit <n>', 'at most this many runs (default 20)', positiveInteger)
    .option('--json', 'one JSON object per run')
    .addHelpText(
      'after',
      '\nContinue a run that is awaiting_approval or whose process died (status running) with bridle resume <id>;\ncheck a recorded run against the current code with bridle replay <id>.',
    )
    .action(async (flags: RunsFlags) => {
      context.setExitCode(await (await import('../actions/runs-action')).runsAction(context, flags));
    });
  return command;
}
