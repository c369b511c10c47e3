import { resumeRun } from '@bridle/core';
import { ConfigError, type Store, type StoredRun } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import { replayModel } from '@bridle/testing';
import type { CommandContext } from '../command-context';
import { exitCodeForStatus } from '../exit-code';
import { markdownFor } from '../markdown-for';
import { createRunRenderer } from '../render-run';
import { firstRunStart } from '../stored-run';

/**
 * `bridle resume` of a run that already ended: its result as the run ended (the answer on stdout and the
 * outcome line, or the `--json` result), and the run's exit code. Nothing runs and no model is called:
 * `resumeRun` returns an ended run's result from its journal, so the model it is given (the recording's
 * own responses) is never asked, and no key or tool flag is needed.
 */
export async function showEndedRun(
  context: CommandContext,
  store: Store,
  run: StoredRun,
  flags: { approve?: string[]; deny?: string[]; json?: boolean },
): Promise<number> {
  const { io, errorStyle: style } = context;
  if (flags.approve?.length || flags.deny?.length)
    throw new ConfigError(
      `Run ${run.runId} is not waiting for approval (status ${run.status}): there is nothing to decide. Nothing was run.`,
    );
  const result = await resumeRun({ model: replayModel(run.events), store, runId: run.runId });
  if (flags.json) {
    const model = firstRunStart(run)?.model;
    io.stdout.write(
      `${JSON.stringify({ ...(model === undefined ? {} : { model: redactCredentials(model) }), ...result })}\n`,
    );
    return exitCodeForStatus(result.status);
  }
  io.stderr.write(`${style.dim(`Run ${run.runId} had already ended (${result.status}): its result, unchanged.`)}\n`);
  const renderer = createRunRenderer({
    stdout: io.stdout,
    stderr: io.stderr,
    style,
    markdown: await markdownFor(io.stdout, context.outputStyle),
  });
  if (result.answer !== undefined) renderer.answer(result.answer);
  renderer.finish(result);
  return exitCodeForStatus(result.status);
}
