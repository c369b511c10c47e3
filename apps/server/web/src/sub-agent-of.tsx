import type { PendingApproval, RunDetail } from './api';
import { shortId } from './format';

/**
 * On an approval card, which sub-agent asks (a call a sub-agent made, with that sub-agent's run linked):
 * the decision is made on this run all the same, and resumes both. Nothing for the run's own calls.
 */
export function SubAgentOf({ approval, runId }: { approval: PendingApproval; runId: string }) {
  if (approval.runId === undefined || approval.runId === runId) return null;
  return (
    <div class="muted sub-agent">
      asked by sub-agent{' '}
      <a href={`#/runs/${approval.runId}`} class="mono">
        {shortId(approval.runId)}
      </a>
    </div>
  );
}

/** On a sub-agent's own page: the run that started it, where its calls are decided (no buttons here). */
export function ParentOf({ parent }: { parent: NonNullable<RunDetail['parent']> }) {
  return (
    <p class="muted sub-agent-of">
      Sub-agent of run{' '}
      <a href={`#/runs/${parent.runId}`} class="mono">
        {shortId(parent.runId)}
      </a>
      : its calls are decided on that run, which resumes this one.
    </p>
  );
}
