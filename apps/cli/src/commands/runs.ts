import { Command } from 'commander';
import type { RunsFlags } from '../actions/runs-action';
import type { CommandContext } from '../command-context';
import { positiveInteger } from '../parse-options';
import { addProjectFlags } from '../project-flags';
import { STORE_FLAG_HELP } from '../store-flag';

/** `bridle runs`: the runs kept in the store, newest first. */
export function runsCommand(context: CommandContext): Command {
  const command = new Command('runs')
    .description(
      'List the runs kept in the store, newest first: id, status, model, last update, title (the first line of the prompt); with a run id, that run and its approvals',
    )
    .argument('[runId]', 'show this run: its status and each call that needed a decision, with who decided it');
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
      [
        '',
        'bridle runs <id> shows one run: a line per call that needed a decision, approved or denied, with',
        'decidedBy (person, policy or timeout) and by (who: the CLI user, the server key, the rule), or waiting.',
        'Continue a run that is awaiting_approval or whose process died (status running) with bridle resume <id>;',
        'check a recorded run against the current code with bridle replay <id>.',
      ].join('\n'),
    )
    .action(async (runId: string | undefined, flags: RunsFlags) => {
      context.setExitCode(await (await import('../actions/runs-action')).runsAction(context, flags, runId));
    });
  return command;
}
