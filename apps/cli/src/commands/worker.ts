import { Command, InvalidArgumentError, Option } from 'commander';
import type { WorkerFlags } from '../actions/worker-action';
import { addAgentFlags } from '../agent-flags';
import type { CommandContext } from '../command-context';
import { duration, positiveInteger } from '../parse-options';

/** A commander parser for `--rate-limit N/s|N/min` (checked again, with the fix, by the action). */
function rateLimit(value: string): string {
  if (!/^\s*\d+\s*\/\s*(s|sec|second|m|min|minute)\s*$/i.test(value))
    throw new InvalidArgumentError(`expected <calls>/s or <calls>/min, e.g. 10/s or 500/min, got "${value}".`);
  return value;
}

/** `bridle worker --redis <url> --store <url>`: runs queued agent jobs until SIGTERM. */
export function workerCommand(context: CommandContext): Command {
  const command = new Command('worker')
    .description(
      'Run agent jobs from the Redis queue bridle-runs (enqueued by `bridle batch --queue` or the server), journaled in a shared store',
    )
    .option('--redis <url>', 'Redis of the queue, e.g. redis://127.0.0.1:6379 (default: $BRIDLE_REDIS_URL)')
    .option('-c, --concurrency <n>', 'jobs run at once by this worker', positiveInteger, 4)
    .option(
      '--rate-limit <n/unit>',
      'model calls per model id across all workers of the queue: N/s or N/min',
      rateLimit,
    )
    .option(
      '--queue-prefix <name>',
      'key prefix separating deployments on one Redis (default: $BRIDLE_QUEUE_PREFIX, else bridle)',
    )
    .addOption(
      new Option(
        '--drain-timeout <duration>',
        'on SIGTERM: how long running jobs may finish before they are handed back',
      )
        .argParser(duration)
        .default(30_000, '30s'),
    );
  addAgentFlags(command)
    .addHelpText(
      'after',
      '\nThe worker holds the credentials and tool settings; a job carries its prompt, model id, skill and limits.\nIt runs jobs whose model id uses an endpoint its own settings chose, and the skills given with --skill.\nSIGTERM or Ctrl-C drains it: no new jobs, running ones finish or are handed back; exit 0.\nExit codes: 0 stopped cleanly, 2 usage or configuration error (Redis or the store unreachable included).',
    )
    .action(async (flags: WorkerFlags) => {
      context.setExitCode(await (await import('../actions/worker-action')).workerAction(context, flags));
    });
  return command;
}
