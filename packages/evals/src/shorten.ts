/**
 * `text` as it is when it has at most `max` characters, else its head and tail around
 * `…[N characters]…` (N: how many were left out), so reports stay bounded whatever a run answered.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 24);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${text.slice(0, head)}…[${text.length - keep} characters]…${tail > 0 ? text.slice(-tail) : ''}`;
}

/** A value on one line for a reason: JSON, at most `max` characters. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return shorten(text, max);
}
