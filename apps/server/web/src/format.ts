/** `1.2 s`, `340 ms`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `$0.0123`, or `–` when unknown. */
export function formatCost(usd: number | undefined): string {
  return usd === undefined ? '–' : `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** Local time of an ISO timestamp. */
export function formatTime(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

/** JSON for display, cut to `limit` characters. */
export function preview(value: unknown, limit = 2000): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text === undefined ? '' : text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The first 8 characters of a run id (SPEC: each row shows the run's short id). */
export const shortId = (runId: string): string => runId.slice(0, 8);
