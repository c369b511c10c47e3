import { approvalView } from '@bridle/protocol';
import type { PendingApproval } from './api';
import { formatTime } from './format';
import { SubAgentOf } from './sub-agent-of';

/**
 * One pending call with Approve and Deny: every argument key (`approvalView`: long values shortened in the
 * middle, `path`, `command`, `url` and preset parameters whole), and the whole arguments one click away.
 */
export function ApprovalCard({
  approval,
  runId,
  onDecide,
}: {
  approval: PendingApproval;
  /** The run whose page shows the card (a sub-agent's call names its own run beside it). */
  runId: string;
  onDecide: (approval: PendingApproval, approved: boolean) => void;
}) {
  const view = approvalView(approval.arguments, { maxValueChars: 400 });
  return (
    <div class="approval" data-call-id={approval.callId}>
      <div>
        <strong>{approval.name}</strong> <span class="mono muted">{approval.callId}</span>
      </div>
      <SubAgentOf approval={approval} runId={runId} />
      {approval.deadline && (
        <div class="muted deadline">Decide by {formatTime(approval.deadline)}: undecided then, the call is denied.</div>
      )}
      {view.fields.length > 0 ? (
        <dl class="arguments">
          {view.fields.map((field) => (
            <div class="argument" key={field.key}>
              <dt class="mono">{field.key}</dt>
              <dd class="mono">{field.value}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <pre class="arguments">{view.text}</pre>
      )}
      {view.omitted > 0 && (
        <details class="full-arguments">
          <summary>Show all arguments ({view.omitted} characters shortened above)</summary>
          <pre>{view.full}</pre>
        </details>
      )}
      <button type="button" class="approve" onClick={() => onDecide(approval, true)}>
        Approve
      </button>{' '}
      <button type="button" class="deny" onClick={() => onDecide(approval, false)}>
        Deny
      </button>
    </div>
  );
}
