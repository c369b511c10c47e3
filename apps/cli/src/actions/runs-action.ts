import { redactCredentials } from '@bridle/protocol/internal';
import { openCliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import type { ProjectFlags } from '../project-flags';
import { formatRunLine } from '../run-line';
import type { StoreFlags } from '../store-flag';
import { showRun } from './show-run';

/** Flags of `bridle runs`. */
export interface RunsFlags extends ProjectFlags, StoreFlags {
  status?: string;
  limit?: number;
  json?: boolean;
}

/**
 * The `runs` command's work: one line per run on stdout (or JSON lines), or with `runId` that run and its
 * approvals (who decided each); resolves with the exit code.
 */
export async function runsAction(context: CommandContext, flags: RunsFlags, runId?: string): Promise<number> {
  const { io, outputStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const stored = await openCliStore(context, flags, project.config, { readOnly: true });
  try {
    if (runId !== undefined) return await showRun(context, stored, runId, flags.json === true);
    const runs = await stored.store.listRuns({
      limit: flags.limit ?? 20,
      ...(flags.status === undefined ? {} : { status: flags.status }),
    });
    if (flags.json) {
      for (const run of runs)
        io.stdout.write(
          `${JSON.stringify(run.model === undefined ? run : { ...run, model: redactCredentials(run.model) })}\n`,
        );
      return ExitCode.completed;
    }
    if (runs.length === 0) {
      io.stderr.write(style.dim(`No runs${flags.status ? ` with status ${flags.status}` : ''} in ${stored.url}.\n`));
      if (stored.hint !== undefined) io.stderr.write(style.dim(`${stored.hint}\n`));
      return ExitCode.completed;
    }
    const width = Math.max(...runs.map((run) => run.status.length));
    for (const run of runs) io.stdout.write(`${formatRunLine(run, style, width)}\n`);
    return ExitCode.completed;
  } finally {
    await stored.close();
  }
}
