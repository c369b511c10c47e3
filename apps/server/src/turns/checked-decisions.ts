import type { ApprovalDecision } from '@bridle/core';
import { pendingCalls, runParent } from '../run-views';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';
import { readOwnRun, runNotFound } from '../tenant-access';
import type { Caller } from '../tenant-auth';

/** A decision a protocol face received: approve or deny `callId`, made on the pause whose call had `digest`. */
export interface ReceivedDecision {
  approved: boolean;
  /** The pending call's digest as it was shown (A2A's `digest`, the UI's approval id): binds it to that pause. */
  digest?: string;
  reason?: string;
}

/** The pending calls of a paused run, as a face shows them (arguments as recorded). */
export type PendingCall = { callId: string; name: string; arguments: unknown; digest?: string };

const quote = (value: string) => JSON.stringify(value);

/**
 * Checks decisions against the run's current pause with the rules of `POST /api/runs/:id/approvals` (SPEC
 * "Approvals"): the run is the caller's tenant's (else 404, like an unknown id) and waits for approval (409
 * `run_not_waiting`), it is not a sub-agent's pause, and every decided call is pending on this pause with the
 * digest the decision names (409 `approval_not_pending`, nothing runs). Returns the decisions as core journals
 * them, `by` the caller's key name.
 */
export async function checkedDecisions(
  context: ServerContext,
  caller: Caller,
  runId: string,
  decisions: Record<string, ReceivedDecision>,
): Promise<Record<string, ApprovalDecision>> {
  const run = await readOwnRun(context, caller, runId);
  if (!run) throw runNotFound(runId);
  const callIds = Object.keys(decisions);
  const first = quote(callIds[0] ?? '');
  if (run.status !== 'awaiting_approval') {
    throw new ServerError(
      'run_not_waiting',
      `Cannot decide call ${first}: run ${runId} is not waiting for approval (status ${run.status}). Nothing was run.`,
    );
  }
  if (runParent(run) !== undefined) {
    throw new ServerError(
      'approval_not_pending',
      `Cannot decide call ${first} on run ${runId}: it is a sub-agent's pause; decide it on its parent run. Nothing was run.`,
    );
  }
  const calls = pendingCalls(run);
  const by = caller.keyName ?? 'a client without an API key';
  const result: Record<string, ApprovalDecision> = {};
  for (const [callId, decision] of Object.entries(decisions)) {
    const call = calls.find((pending) => pending.callId === callId);
    if (!call) {
      throw new ServerError(
        'approval_not_pending',
        `Cannot decide call ${quote(callId)}: it is not pending in run ${runId} (pending: ${calls.map((pending) => quote(pending.callId)).join(', ') || 'none'}). Nothing was run.`,
      );
    }
    if (decision.digest !== undefined && decision.digest !== call.digest) {
      throw new ServerError(
        'approval_not_pending',
        `Cannot decide call ${quote(callId)}: the decision was made on another pause (its digest is not the pending call's). Nothing was run; reload and decide on the call shown now.`,
      );
    }
    result[callId] = {
      approved: decision.approved,
      ...(decision.digest === undefined ? {} : { digest: decision.digest }),
      ...(!decision.approved && decision.reason !== undefined ? { reason: decision.reason } : {}),
      by,
    } as ApprovalDecision;
  }
  return result;
}

/** The calls a paused run waits on (empty unless it is the caller's and `awaiting_approval`). */
export async function pendingOf(context: ServerContext, caller: Caller, runId: string): Promise<PendingCall[]> {
  const run = await readOwnRun(context, caller, runId);
  return run
    ? pendingCalls(run).map(({ callId, name, arguments: args, digest }) => ({
        callId,
        name,
        arguments: args,
        ...(digest === undefined ? {} : { digest }),
      }))
    : [];
}
