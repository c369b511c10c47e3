import { UnrecoverableError } from 'bullmq';

// What begins the failed reason of an approvals job that another decision beat: the queue's readers find
// the case by it (`QueuedJob.failedCode`), and people read it as the start of the sentence.
const MARK = 'Decided elsewhere: ';

/** The failure of an approvals job whose paused run another decision resumed first: not retried, nothing run. */
export function decidedElsewhere(runId: string, why: string): UnrecoverableError {
  return new UnrecoverableError(`${MARK}run ${runId} ${why}. Nothing was run.`);
}

/** `'decided_elsewhere'` for the failed reason of such a job. */
export function failureCode(failedReason: string | undefined): 'decided_elsewhere' | undefined {
  return failedReason?.startsWith(MARK) ? 'decided_elsewhere' : undefined;
}
