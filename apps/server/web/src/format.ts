/** `1.2 s`, `340 ms`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '–';
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** `$0.0123`, or `–` when unknown. */
export function formatCost(usd: number | undefined): string {
  return usd === undefined ? '–' : `$${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/**
 * `2026-12-07 05:18:05`: the local time of an ISO timestamp, the same in every locale. Written without Intl
 * (`toLocaleString`), whose first use in a page costs tens of milliseconds of ICU set-up.
 */
export function formatTime(iso: string | undefined): string {
  const date = iso === undefined ? undefined : new Date(iso);
  if (date === undefined || Number.isNaN(date.getTime())) return '–';
  const day = `${date.getFullYear()}-${twoDigits(date.getMonth() + 1)}-${twoDigits(date.getDate())}`;
  return `${day} ${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}`;
}

/** `12,345`: a whole count with thousands separators (without Intl, as `formatTime`). */
export function formatCount(value: number): string {
  return String(Math.trunc(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** JSON for display, cut to `limit` characters. */
export function preview(value: unknown, limit = 2000): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return text === undefined ? '' : text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** The first 8 characters of a run id (SPEC: each row shows the run's short id). */
export const shortId = (runId: string): string => runId.slice(0, 8);

/** A model id in short form: `openai-compatible:<baseURL>#<model>` reads `openai-compatible:<model>` (the URL goes on hover). */
export function shortModel(model: string | undefined): string {
  if (model === undefined) return '–';
  const hash = model.indexOf('#');
  const colon = model.indexOf(':');
  return hash > colon && colon > 0 ? `${model.slice(0, colon)}:${model.slice(hash + 1)}` : model;
}

/** Tokens in and out of a usage, summed (`–` when unknown). */
export function formatTokens(usage: { inputTokens: number; outputTokens: number } | undefined): string {
  return usage ? formatCount(usage.inputTokens + usage.outputTokens) : '–';
}

/** What a status means to a person: `awaiting_approval` reads "waiting for approval". */
export function statusLabel(status: string): string {
  return status === 'awaiting_approval' ? 'waiting for approval' : status.replaceAll('_', ' ');
}

/** The first line of a text (a title), cut to `limit` characters. */
export function firstLine(text: string | undefined, limit = 120): string | undefined {
  const line = text?.replace(/^\s+/, '').split('\n', 1)[0]?.trimEnd();
  return line ? (line.length > limit ? `${line.slice(0, limit)}…` : line) : undefined;
}
