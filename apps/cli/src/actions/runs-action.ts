import { displayText } from '@bridle/models';
import { openCliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { loadCliProject } from '../load-cli-project';
import type { ProjectFlags } from '../project-flags';
import type { StoreFlags } from '../store-flag';

/** Flags of `bridle runs`. */
export interface RunsFlags extends ProjectFlags, StoreFlags {
  status?: string;
  limit?: number;
  json?: boolean;
}

/** The `runs` command's work: one line per run on stdout (or JSON lines); resolves with the exit code. */
export async function runsAction(context: CommandContext, flags: RunsFlags): Promise<number> {
  const { io, outputStyle: style } = context;
  const project = await loadCliProject(context, flags);
  const stored = await openCliStore(context, flags, project.config);
  try {
    const runs = await stored.store.listRuns({
      limit: flags.limit ?? 20,
      ...(flags.status === undefined ? {} : { status: flags.status }),
    });
    if (flags.json) {
      for (const run of runs) io.stdout.write(`${JSON.stringify(run)}\n`);
      return ExitCode.completed;
    }
    if (runs.length === 0) {
      io.stderr.write(style.dim(`No runs${flags.status ? ` with status ${flags.status}` : ''} in ${stored.url}.\n`));
      return ExitCode.completed;
    }
    const width = Math.max(...runs.map((run) => run.status.length));
    for (const run of runs) {
      const status = run.status.padEnd(width);
      const colour =
        run.status === 'completed'
          ? style.green
          : run.status === 'awaiting_approval'
            ? style.yellow
            : run.status === 'running'
              ? style.cyan
              : style.red;
      io.stdout.write(
        `${run.runId}  ${colour(status)}  ${displayText(run.model ?? '-')}  ${style.dim(run.updatedAt)}\n`,
      );
    }
    return ExitCode.completed;
  } finally {
    await stored.close();
  }
}
