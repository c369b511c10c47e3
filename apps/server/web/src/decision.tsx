import type { InspectorEvent } from './api';
import { formatTime } from './format';

/**
 * What an `approval_decided` event says, in words: who decided (a person, a policy, the deadline), who
 * exactly when known (`by`: an API key's name, the CLI user, the rule), and the outcome.
 */
export function decisionText(event: InspectorEvent): string {
  const verb = event.approved ? 'Approved' : 'Denied';
  if (event.decidedBy === 'timeout')
    return event.approved
      ? 'Approved when its deadline passed undecided (the tool approves on timeout)'
      : 'Denied: no decision was made before its deadline';
  const kind = event.decidedBy === 'policy' ? 'policy' : 'person';
  return event.by ? `${verb} by ${event.by} (${kind})` : `${verb} by a ${kind}`;
}

/** Who decided a call, and when (`approval_decided`; third release). */
export function Decision({ event }: { event: InspectorEvent }) {
  return (
    <p class={`decision decision-${event.approved ? 'approved' : 'denied'}`} data-decided-by={event.decidedBy}>
      {decisionText(event)} · <time dateTime={event.timestamp}>{formatTime(event.timestamp)}</time>
    </p>
  );
}
