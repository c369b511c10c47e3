import { Command, Option } from 'commander';
import type { RunFlags } from '../actions/run-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';

/** `bridle run "<prompt>"`: one run, streamed to the terminal (or one JSON result with `--json`). */
export function runCommand(context: CommandContext): Command {
  const command = new Command('run')
    .description('Run an agent once on a prompt and stream its answer')
    .argument(
      '[prompt]',
      'what to do; piped standard input is appended to it (echo notes | bridle run "Summarize this"); "-" (or nothing) reads the whole prompt from stdin',
    )
    .argument('[stdin]', '"-" after a prompt appends standard input to it (optional: piped input is appended anyway)');
  addAgentFlags(command)
    .addOption(
      new Option(
        '--output-format <format>',
        'text (streamed for a person), json (one result object at the end) or stream-json (one run event per line as it happens)',
      ).choices(['text', 'json', 'stream-json']),
    )
    .option('--json', 'print the result as one JSON object instead of streaming (same as --output-format json)')
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
