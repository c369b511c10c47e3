import { Command } from 'commander';
import type { ReplayFlags } from '../actions/replay-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';

/** `bridle replay <runId>`: re-run a stored run offline and say where it differs from the recording. */
export function replayCommand(context: CommandContext): Command {
  const command = new Command('replay')
    .description(
      'Re-run a stored run without calling any model (the recorded responses are served) and report where it differs',
    )
    .argument('<runId>', 'the run to replay (bridle runs lists them)');
  addAgentFlags(command)
    .option('--json', 'print { runId, matches, divergence?, status, steps, toolCalls } as one JSON object')
    .addHelpText(
      'after',
      [
        '',
        'The model is replaced by the recorded responses (no key, no network). Read-only tools that the flags give',
        '(-w, --skill, --allow-command, --mcp: pass the ones the run had) run for real against the files as they',
        'are now; every other call gets its recorded result, and recorded denials are denied again. Nothing is',
        'written to the store. Turn an incident into a test: keep the run (its journal, or the store file) and run',
        'bridle replay <id> in CI, or replayModel(events) from @bridle/testing in your own test.',
        '',
        'Exit codes: 0 the replay matches the recording, 1 it differs (the first difference is named: step, call,',
        'tool, arguments, error or result, status), 2 usage error or unknown run.',
      ].join('\n'),
    )
    .action(async (runId: string, flags: ReplayFlags) => {
      context.setExitCode(await (await import('../actions/replay-action')).replayAction(context, runId, flags));
    });
  return command;
}
