import { useMemo } from 'preact/hooks';
import type { InspectorEvent } from './api';
import { formatTime } from './format';
import { Markdown } from './markdown';

/** One thing done to the run from outside while it ran: a steering message, or the cancel. */
export interface SteeringEntry {
  key: string;
  kind: 'input' | 'cancel';
  by?: string;
  timestamp: string;
  /** `input`: the message (Markdown). */
  content?: string;
  /** `input`: when it joined the conversation (`joined before step 3`), or when it will. */
  joined?: string;
}

/**
 * The run's own `input` events (steering: `POST /api/runs/:id/input`, `bridle steer`, `streamAgent`'s
 * `input()`) and the `cancelledBy` of its `run_end`, in order. An input joins the conversation at the next
 * step boundary (the next `model_start`); a paused run's input joins when the run resumes.
 */
export function steeringEntries(events: readonly InspectorEvent[]): SteeringEntry[] {
  const entries: SteeringEntry[] = [];
  const waiting: SteeringEntry[] = [];
  let paused = false;
  let ended = false;
  for (const event of events) {
    if (event.parentRunId !== undefined) continue;
    const key = `${event.runId}:${event.sequence}`;
    if (event.type === 'input') {
      const entry: SteeringEntry = {
        key,
        kind: 'input',
        timestamp: event.timestamp,
        content: event.content ?? '',
        ...(event.by === undefined ? {} : { by: event.by }),
      };
      entries.push(entry);
      waiting.push(entry);
    } else if (event.type === 'run_start' && paused) {
      for (const entry of waiting.splice(0)) entry.joined = 'joined on resume';
      paused = false;
    } else if (event.type === 'model_start') {
      for (const entry of waiting.splice(0)) entry.joined ??= `joined before step ${event.step}`;
    } else if (event.type === 'run_end') {
      paused = event.status === 'awaiting_approval';
      ended = !paused;
      if (event.cancelledBy !== undefined)
        entries.push({ key, kind: 'cancel', by: event.cancelledBy, timestamp: event.timestamp });
    }
    if (event.type === 'run_start') ended = false;
  }
  const later = paused
    ? 'joins when the run resumes'
    : ended
      ? 'the run ended before reading it'
      : 'joins at the next step';
  for (const entry of waiting) entry.joined = later;
  return entries;
}

/**
 * Who steered the run and who cancelled it, and when: each steering message shown as the user message it
 * became (Markdown, sanitized). Nothing when no one did either.
 */
export function Steering({ events }: { events: readonly InspectorEvent[] }) {
  const entries = useMemo(() => steeringEntries(events), [events]);
  if (entries.length === 0) return null;
  return (
    <section class="steering" aria-label="Steering">
      <h3>Steering</h3>
      <ol class="conversation">
        {entries.map((entry) =>
          entry.kind === 'input' ? (
            <li key={entry.key} class="message message-user steer-input">
              <span class="message-role">
                Steered by <strong class="steer-by">{entry.by ?? 'someone'}</strong> ·{' '}
                <time dateTime={entry.timestamp}>{formatTime(entry.timestamp)}</time>
                {entry.joined ? ` · ${entry.joined}` : ''}
              </span>
              <Markdown text={entry.content ?? ''} />
            </li>
          ) : (
            <li key={entry.key} class="message steer-cancel">
              <span class="message-role">
                Cancelled by <strong class="steer-by">{entry.by ?? 'someone'}</strong> ·{' '}
                <time dateTime={entry.timestamp}>{formatTime(entry.timestamp)}</time>
              </span>
              <p>The run stopped here (status aborted).</p>
            </li>
          ),
        )}
      </ol>
    </section>
  );
}
