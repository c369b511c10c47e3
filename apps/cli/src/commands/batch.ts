import { Command } from 'commander';
import type { BatchFlags } from '../actions/batch-flags';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';
import { nonNegativeInteger, positiveInteger } from '../parse-options';

/** `bridle batch in.jsonl --out results.jsonl`: one run per input line, resumable. */
export function batchCommand(context: CommandContext): Command {
  const command = new Command('batch')
    .description(
      'Run the agent once per line of a JSONL file ({"id": "a", "prompt": "..."}), appending one result line per item',
    )
    .argument(
      '<input>',
      'JSONL file, or - for standard input: one {"id", "prompt"} object per line (optional: system, maxSteps, maxToolCalls, timeoutMs)',
    )
    .requiredOption('-o, --out <file>', 'results file (JSONL); rerun with the same file to skip the ids already there')
    .option('-c, --concurrency <n>', 'runs at once', positiveInteger, 4)
    .option(
      '-r, --retries <n>',
      'retries of each failed model call of an item (with backoff): at most 1 + n provider calls per step',
      nonNegativeInteger,
      2,
    )
    .option(
      '--retry-failed',
      'rerun the items whose last result in --out did not complete (the new line is appended; the last line of an id wins)',
    )
    .option('--queue <redis-url>', 'enqueue the items for `bridle worker`s on this Redis instead of running them here')
    .option(
      '--queue-prefix <name>',
      'with --queue: the deployment key prefix (default: $BRIDLE_QUEUE_PREFIX, else bridle)',
    );
  addAgentFlags(command)
    .addHelpText(
      'after',
      '\nExit codes: 0 every item completed, 1 an item failed or a line was bad, 2 usage or configuration error, 130 interrupted (rerun to resume).',
    )
    .action(async (input: string, flags: BatchFlags) => {
      context.setExitCode(await (await import('../actions/batch-action')).batchAction(context, input, flags));
    });
  return command;
}
