import { useMemo } from 'preact/hooks';
import type { InspectorEvent } from './api';
import { decisionText } from './decision';
import { formatCost, formatDuration, preview } from './format';
import { ShowMore } from './show-more';

/** One entry of a run's timeline: a model call, a tool call, an error, or the run's start or end. */
interface Entry {
  key: string;
  kind: 'model' | 'tool' | 'error' | 'run';
  title: string;
  detail?: string;
  body?: string;
  isError?: boolean;
  nested?: boolean;
}

/** Folds the event list into timeline entries (tool_start + tool_end become one entry, text deltas are skipped). */
export function timelineEntries(events: readonly InspectorEvent[]): Entry[] {
  const entries: Entry[] = [];
  const tools = new Map<string, Entry>();
  for (const event of events) {
    const nested = event.parentRunId !== undefined;
    const key = `${event.runId}:${event.sequence}`;
    switch (event.type) {
      case 'run_start':
        entries.push({
          key,
          kind: 'run',
          nested,
          title: `${event.resumed ? 'resumed' : 'run started'}${event.model ? ` · ${event.model}` : ''}`,
        });
        break;
      case 'model_end': {
        const usage = event.usage;
        entries.push({
          key,
          kind: 'model',
          nested,
          title: `model call · step ${event.step}${event.model ? ` · ${event.model}` : ''}`,
          detail: `${formatDuration(event.durationMs)} · ${usage ? `${usage.inputTokens} in / ${usage.outputTokens} out` : 'no usage'} · ${formatCost(usage?.costUsd)} · ${event.toolCalls ?? 0} tool calls`,
          ...(event.content ? { body: preview(event.content) } : {}),
        });
        break;
      }
      case 'model_error':
        entries.push({
          key,
          kind: 'error',
          nested,
          isError: true,
          title: `model error · step ${event.step} · attempt ${event.attempt ?? 1}${event.willRetry ? ' · retried' : ''}`,
          body: event.error,
        });
        break;
      case 'tool_start': {
        const entry: Entry = {
          key,
          kind: 'tool',
          nested,
          title: `tool ${event.name}`,
          detail: 'running…',
          body: `arguments: ${preview(event.arguments)}`,
        };
        tools.set(`${event.runId}:${event.callId}`, entry);
        entries.push(entry);
        break;
      }
      case 'tool_end': {
        const entry = tools.get(`${event.runId}:${event.callId}`);
        if (!entry) break;
        entry.detail = `${formatDuration(event.durationMs)}${event.isError ? ' · error' : ''}`;
        entry.isError = event.isError === true;
        entry.body = `${entry.body}\n${event.isError ? 'error' : 'result'}: ${preview(event.result)}`;
        break;
      }
      case 'approval_requested':
        entries.push({
          key,
          kind: 'run',
          nested,
          title: `approval asked · ${event.name ?? ''} ${event.callId ?? ''}`,
          ...(event.deadline ? { detail: `decide by ${event.deadline}` } : {}),
        });
        break;
      case 'approval_decided':
        entries.push({
          key,
          kind: 'run',
          nested,
          isError: event.approved !== true,
          title: `${event.approved ? 'approved' : 'denied'} · ${event.callId ?? ''}`,
          detail: decisionText(event),
        });
        break;
      case 'input':
        entries.push({
          key,
          kind: 'run',
          nested,
          title: `steered${event.by ? ` by ${event.by}` : ''}`,
          body: event.content ?? '',
        });
        break;
      case 'run_end':
        // The answer is shown once, at the top of the page; a pause is not an end.
        entries.push({
          key,
          kind: 'run',
          nested,
          isError: event.status !== 'completed' && event.status !== 'awaiting_approval',
          title: event.status === 'awaiting_approval' ? 'paused · waiting for approval' : `run ended · ${event.status}`,
          detail: `${event.cancelledBy ? `cancelled by ${event.cancelledBy} · ` : ''}${event.steps ?? 0} steps · ${formatDuration(event.durationMs)} · ${formatCost(event.usage?.costUsd)}`,
          ...(event.error ? { body: event.error } : {}),
        });
        break;
    }
  }
  return entries;
}

/** Entries drawn before "Show all". */
const ENTRIES_SHOWN = 50;

/** A run's timeline. */
export function Timeline({ events }: { events: readonly InspectorEvent[] }) {
  const entries = useMemo(() => timelineEntries(events), [events]);
  return (
    <ShowMore items={entries} limit={ENTRIES_SHOWN} what="events">
      {(shown) => <TimelineEntries entries={shown} />}
    </ShowMore>
  );
}

function TimelineEntries({ entries }: { entries: readonly Entry[] }) {
  return (
    <ol class="timeline">
      {entries.map((entry) => (
        <li
          key={entry.key}
          class={`entry entry-${entry.kind}${entry.isError ? ' entry-error' : ''}${entry.nested ? ' entry-nested' : ''}`}
        >
          <div class="entry-title">{entry.title}</div>
          {entry.detail && <div class="entry-detail">{entry.detail}</div>}
          {entry.body && <pre class="entry-body">{entry.body}</pre>}
        </li>
      ))}
    </ol>
  );
}
