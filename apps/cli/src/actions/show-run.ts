import { displayText } from '@bridle/models';
import { redactCredentials } from '@bridle/protocol/internal';
import type { CliStore } from '../cli-store';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';
import { type RunApproval, runApprovals } from '../run-approvals';
import { firstRunStart, readStoredRun } from '../stored-run';

/**
 * `bridle runs <id>`: the run's line (id, status, model, last update), then a line per call that needed a
 * decision: approved or denied with `decidedBy` and `by` (from its `approval_decided`), or waiting. With
 * `json`, one object: `{ runId, status, model, createdAt, updatedAt, approvals }`. Unknown run: exit 2.
 */
export async function showRun(context: CommandContext, stored: CliStore, runId: string, json: boolean) {
  const { io, outputStyle: style } = context;
  const run = await readStoredRun(stored.store, runId, stored.url, stored.hint);
  const model = firstRunStart(run)?.model;
  const approvals = runApprovals(run.runId, run.events);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        runId: run.runId,
        status: run.status,
        ...(model === undefined ? {} : { model: redactCredentials(model) }),
        createdAt: run.createdAt,
        updatedAt: run.updatedAt,
        approvals,
      })}\n`,
    );
    return ExitCode.completed;
  }
  io.stdout.write(
    `${run.runId}  ${run.status}  ${displayText(redactCredentials(model ?? '-'))}  ${style.dim(run.updatedAt)}\n`,
  );
  if (approvals.length === 0) {
    io.stdout.write(`${style.dim('No call of this run needed a decision.')}\n`);
    return ExitCode.completed;
  }
  io.stdout.write('Approvals:\n');
  for (const approval of approvals) io.stdout.write(`  ${approvalLine(approval, style)}\n`);
  return ExitCode.completed;
}

/** `<callId>  <tool>  approved|denied  decidedBy <how>  by <who>`, or `waiting for a decision [until <deadline>]`. */
function approvalLine(approval: RunApproval, style: CommandContext['outputStyle']): string {
  // The journal may come from a store someone else wrote: every recorded text is shown inert.
  const call = [
    displayText(approval.callId),
    displayText(approval.name ?? '?'),
    ...(approval.subAgentRunId === undefined ? [] : [style.dim(`(sub-agent ${displayText(approval.subAgentRunId)})`)]),
  ].join('  ');
  if (approval.approved === undefined)
    return `${call}  ${style.yellow('waiting for a decision')}${approval.deadline === undefined ? '' : ` until ${displayText(approval.deadline)}`}`;
  const verdict = approval.approved ? style.green('approved') : style.red('denied');
  return `${call}  ${verdict}  decidedBy ${displayText(approval.decidedBy ?? '?')}${approval.by === undefined ? '' : `  by ${displayText(approval.by)}`}`;
}
