import { Command } from 'commander';
import type { RunFlags } from '../actions/run-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';

/** `bridle run "<prompt>"`: one run, streamed to the terminal (or one JSON result with `--json`). */
export function runCommand(context: CommandContext): Command {
  const command = new Command('run')
    .description('Run an agent once on a prompt and stream its answer')
    .argument('[prompt]', 'what to do; "-" (or nothing, with piped input) reads the whole prompt from stdin')
    .argument('[stdin]', '"-" after a prompt appends standard input to it: bridle run "Summarize this" - < notes.txt');
  addAgentFlags(command)
    .option('--json', 'print the result as one JSON object instead of streaming')
    .option('--trace <file>', 'write every run event to this file as JSON lines')
    .addHelpText(
      'after',
      '\nExit codes: 0 completed, 1 ended by a limit or a model error, 2 usage or configuration error, 130 interrupted.',
    )
    .action(async (prompt: string | undefined, stdin: string | undefined, flags: RunFlags) => {
      context.setExitCode(await (await import('../actions/run-action')).runAction(context, prompt, flags, stdin));
    });
  return command;
}
