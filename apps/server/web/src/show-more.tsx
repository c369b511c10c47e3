import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatCount } from './format';

/**
 * The first `limit` of `items` drawn, the rest behind one "Show all" button: a run of thousands of events
 * renders its first screen at once and stays responsive.
 */
export function ShowMore<T>({
  items,
  limit,
  what,
  children,
}: {
  items: readonly T[];
  limit: number;
  what: string;
  children: (shown: readonly T[]) => ComponentChildren;
}) {
  const [all, setAll] = useState(false);
  const shown = all || items.length <= limit ? items : items.slice(0, limit);
  return (
    <>
      {children(shown)}
      {shown.length < items.length && (
        <button type="button" class="show-more" onClick={() => setAll(true)}>
          Show all {formatCount(items.length)} {what} ({formatCount(items.length - shown.length)} more)
        </button>
      )}
    </>
  );
}
