import type { RunEvent, Store, StoredRun } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';

/** Reads a run from the store; `ConfigError` (exit 2) naming the run and how to list runs when there is none. */
export async function readStoredRun(store: Store, runId: string, where: string, hint?: string): Promise<StoredRun> {
  const run = await store.readRun(runId).catch((error: unknown) => {
    // A malformed id is the user's mistake, as an unknown one is.
    throw new ConfigError(`Cannot read run ${JSON.stringify(runId)} from ${where}: ${errorMessage(error)}`, {
      cause: error,
    });
  });
  if (run === undefined || run.events.length === 0) {
    throw new ConfigError(
      `No run ${JSON.stringify(runId)} in ${where}: list the runs with bridle runs (with the same --store), or pass --store where the run was kept.${hint === undefined ? '' : ` ${hint}`}`,
    );
  }
  return run;
}

/** The run's first own `run_start` (not a sub-agent's). */
export function firstRunStart(run: StoredRun): Extract<RunEvent, { type: 'run_start' }> | undefined {
  return run.events.find(
    (event): event is Extract<RunEvent, { type: 'run_start' }> =>
      event.type === 'run_start' && event.parentRunId === undefined && event.runId === run.runId,
  );
}
