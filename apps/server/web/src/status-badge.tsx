import { statusLabel } from './format';

/** A run's status as a coloured badge (`.status.status-<status>`, the raw status in `data-status`). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span class={`status status-${status}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}
