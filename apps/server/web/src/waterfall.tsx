import { useMemo } from 'preact/hooks';
import type { InspectorEvent } from './api';
import { formatDuration } from './format';
import { ShowMore } from './show-more';
import { type WaterfallRow, waterfallRows } from './waterfall-rows';

/** Rows drawn before "Show all". */
const ROWS_SHOWN = 50;

const percent = (value: number) => `${Math.max(0, Math.min(100, value)).toFixed(3)}%`;

/**
 * The run drawn to scale: each model call, tool call and wait for approval as a bar on one time axis, a
 * retried model call as the attempts of one row, a sub-agent's calls nested under the call that ran it.
 * Bars are positioned through the CSSOM (style objects), which the page's CSP allows.
 */
export function Waterfall({
  events,
  children,
}: {
  events: readonly InspectorEvent[];
  children: ReadonlyMap<string, readonly InspectorEvent[]>;
}) {
  const rows = useMemo(() => waterfallRows(events, children, Date.now()), [events, children]);
  if (rows.length === 0) return null;
  const start = rows.reduce((earliest, row) => Math.min(earliest, row.start), Number.POSITIVE_INFINITY);
  const end = rows.reduce((latest, row) => Math.max(latest, row.end), Number.NEGATIVE_INFINITY);
  const span = Math.max(end - start, 1);
  return (
    <section class="waterfall" aria-label="Waterfall">
      <h3>
        Waterfall <span class="muted">{formatDuration(end - start)} in all</span>
      </h3>
      <ShowMore items={rows} limit={ROWS_SHOWN} what="rows">
        {(shown) => (
          <ol>
            {shown.map((row) => (
              <Row key={row.key} row={row} start={start} span={span} />
            ))}
          </ol>
        )}
      </ShowMore>
    </section>
  );
}

function Row({ row, start, span }: { row: WaterfallRow; start: number; span: number }) {
  return (
    <li
      class={`bar-row bar-${row.kind}${row.error ? ' bar-error' : ''}${row.depth > 0 ? ' bar-nested' : ''}`}
      data-depth={row.depth}
      data-attempts={row.attempts.length}
    >
      <span class="bar-label" title={row.label} style={{ paddingLeft: `${row.depth * 1.25}em` }}>
        {row.label}
      </span>
      <span class="bar-track">
        {row.attempts.map((attempt, index) => (
          <span
            key={index}
            class={`bar${attempt.error ? ' bar-failed' : ''}`}
            title={`${index > 0 || row.attempts.length > 1 ? `attempt ${index + 1} · ` : ''}${formatDuration(attempt.end - attempt.start)}${attempt.error ? ` · ${attempt.error}` : ''}`}
            style={{
              left: percent(((attempt.start - start) / span) * 100),
              width: percent(Math.max(((attempt.end - attempt.start) / span) * 100, 0.4)),
            }}
          />
        ))}
      </span>
      <span class="bar-duration">{row.kind === 'steer' ? '' : formatDuration(row.end - row.start)}</span>
    </li>
  );
}
