import { formatCount, preview } from './format';

/** Longer than this (characters or lines), a value is folded: its start shows, the rest one click away. */
const FOLD_CHARS = 600;
const FOLD_LINES = 12;

/** A tool argument or result: whole when short, folded in a `details` when long. */
export function FoldedValue({ label, value }: { label: string; value: unknown }) {
  const text = preview(value, Number.POSITIVE_INFINITY);
  const lines = text.split('\n');
  if (text.length <= FOLD_CHARS && lines.length <= FOLD_LINES) {
    return (
      <div class="value">
        <span class="value-label">{label}</span>
        <pre>{text}</pre>
      </div>
    );
  }
  const head = lines.slice(0, FOLD_LINES).join('\n').slice(0, FOLD_CHARS);
  return (
    <details class="value folded">
      <summary>
        <span class="value-label">{label}</span>{' '}
        <span class="muted">({formatCount(text.length)} characters, folded)</span>
        <pre>{head}…</pre>
      </summary>
      <pre>{text}</pre>
    </details>
  );
}
