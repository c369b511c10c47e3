import { JournalError, type RunAgentOptions, resumeRun } from '@bridle/core';
import { ConfigError, type RunEvent, type Store } from '@bridle/protocol';
import { decidedElsewhere } from './decided-elsewhere';
import type { JobDecision } from './job-spec';

/**
 * An approvals job: resumes the paused run with its decisions. On its first take the run must still wait
 * (else another decision resumed it first: the job fails as `decided_elsewhere`, running nothing); it fails
 * the same way when another job resumed the run after the read here (resumeRun finds it no longer waiting)
 * or at the same moment (the journal takes one resumed segment and refuses the other's: a conflict). A later
 * take (a retry, a dead or draining worker's job) continues the segment it resumed, found by its decisions
 * in that segment's `run_start`; a run resumed with other decisions is not this job's to run. Calls that are not pending make `resumeRun`
 * throw a `ConfigError`: the job fails with it.
 */
export async function resumeWithApprovals(
  store: Store,
  run: RunAgentOptions,
  approvals: Record<string, JobDecision>,
  first: boolean,
): Promise<Awaited<ReturnType<typeof resumeRun>>> {
  const runId = run.runId as string;
  const stored = await store.readRun(runId);
  if (stored?.status === 'awaiting_approval') {
    try {
      return await resumeRun({ ...run, approvals });
    } catch (error) {
      // Another job resumed it between the read above and resumeRun's own (resumeRun refuses: it no longer
      // waits), or both resumed it at once and the journal took the other's segment (a conflict).
      const lost =
        (JournalError.isInstance(error) && (error.conflict || error.fenced)) ||
        (ConfigError.isInstance(error) && (await store.readRun(runId))?.status !== 'awaiting_approval');
      if (lost) throw decidedElsewhere(runId, 'was resumed by another decision at the same moment');
      throw error;
    }
  }
  if (!first && stored !== undefined && sameDecisions(resumedWith(stored.events), approvals)) return resumeRun(run);
  throw decidedElsewhere(
    runId,
    `is not waiting for approval (status ${stored?.status ?? 'unknown: not in the store'}): its calls were decided already`,
  );
}

/** The decisions of the run's last decided segment (segments that only continued a run carry none). */
function resumedWith(events: readonly RunEvent[]): unknown {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index] as RunEvent;
    if (event.type === 'run_start' && event.approvals !== undefined) return event.approvals;
  }
  return undefined;
}

function sameDecisions(journaled: unknown, approvals: Record<string, JobDecision>): boolean {
  if (typeof journaled !== 'object' || journaled === null) return false;
  const entries = Object.entries(journaled);
  return (
    entries.length === Object.keys(approvals).length &&
    entries.every(([callId, decision]) => sameDecision(approvals[callId], decision))
  );
}

/** Two decisions alike: both `true` / `false`, or objects with the same `approved` and `digest`. */
function sameDecision(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  const left = a as { approved?: unknown; digest?: unknown };
  const right = b as { approved?: unknown; digest?: unknown };
  return left.approved === right.approved && left.digest === right.digest;
}
