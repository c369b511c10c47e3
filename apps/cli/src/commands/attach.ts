import { Command } from 'commander';
import type { AttachFlags } from '../actions/attach-action';
import type { CommandContext } from '../command-context';

/** `bridle attach <runId>`: follow a run that executes in a server, answer its approvals, send it input. */
export function attachCommand(context: CommandContext): Command {
  return new Command('attach')
    .description(
      'Follow a run that executes in a Bridle server (or a worker behind it): stream it, answer its approvals, send it input',
    )
    .argument('<runId>', 'the run (GET /api/runs, or the console, lists them)')
    .option(
      '--server <url>',
      "the server's base URL ($BRIDLE_SERVER_URL, default http://127.0.0.1:3000; token: $BRIDLE_API_TOKEN)",
    )
    .option(
      '-w, --workspace <dir>',
      "the server's workspace folder, when this machine can read it: approval questions show edits as diffs against its files",
    )
    .addHelpText(
      'after',
      [
        '',
        'The run is shown from its start, then live, as bridle run shows it. On a terminal, a call that waits for',
        'approval is asked here ([y] yes [n] no [a] always [e] show all, with the diff of an edit) unless someone decided',
        'it elsewhere first; each line you type is sent to the run (it joins at its next step boundary). Ctrl-C',
        'detaches: the run goes on. Without a terminal, approvals are left to others (the console, another attach).',
        '',
        'Exit codes: as bridle run once the run ends (0 completed, 1 a limit or a model error, 130 aborted); 130 when you',
        'detach; 2 for an unknown run, a refused token or a bad --server.',
      ].join('\n'),
    )
    .action(async (runId: string, flags: AttachFlags) => {
      context.setExitCode(await (await import('../actions/attach-action')).attachAction(context, runId, flags));
    });
}
