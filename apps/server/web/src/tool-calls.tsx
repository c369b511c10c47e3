import { useMemo } from 'preact/hooks';
import type { InspectorEvent } from './api';
import { Decision } from './decision';
import { FileDiff, fileChange } from './file-diff';
import { FoldedValue } from './folded-value';
import { formatDuration } from './format';
import { ShowMore } from './show-more';

/** Calls drawn before "Show all". */
const CALLS_SHOWN = 25;

interface Call {
  callId: string;
  name: string;
  step?: number;
  arguments: unknown;
  result?: string;
  isError?: boolean;
  durationMs?: number;
  decisions: InspectorEvent[];
}

/** The run's own tool calls in order, each with its `approval_decided` events. */
export function toolCalls(events: readonly InspectorEvent[]): Call[] {
  const calls = new Map<string, Call>();
  const decisions: InspectorEvent[] = [];
  for (const event of events) {
    if (event.parentRunId !== undefined) continue;
    if (event.type === 'tool_start' && event.callId) {
      calls.set(event.callId, {
        callId: event.callId,
        name: event.name ?? '?',
        ...(event.step === undefined ? {} : { step: event.step }),
        arguments: event.arguments,
        decisions: [],
      });
    } else if (event.type === 'tool_end' && event.callId) {
      const call = calls.get(event.callId);
      if (call) Object.assign(call, { result: event.result, isError: event.isError, durationMs: event.durationMs });
    } else if (event.type === 'approval_decided') decisions.push(event);
  }
  for (const decision of decisions) calls.get(decision.callId ?? '')?.decisions.push(decision);
  return [...calls.values()];
}

/** Tool calls with their arguments and results (long values folded, file edits as diffs). */
export function ToolCalls({ events }: { events: readonly InspectorEvent[] }) {
  const calls = useMemo(() => toolCalls(events), [events]);
  if (calls.length === 0) return null;
  return (
    <section class="tool-calls" aria-label="Tool calls">
      <h3>Tool calls</h3>
      <ShowMore items={calls} limit={CALLS_SHOWN} what="tool calls">
        {(shown) => (
          <ol>
            {shown.map((call) => {
              const change = fileChange(call.name, call.arguments);
              return (
                <li
                  key={call.callId}
                  class={`tool-call${call.isError ? ' tool-error' : ''}`}
                  data-call-id={call.callId}
                >
                  <div class="tool-head">
                    <strong class="mono">{call.name}</strong>{' '}
                    <span class="muted">
                      {call.step === undefined ? '' : `step ${call.step} · `}
                      {call.result === undefined ? 'running…' : formatDuration(call.durationMs)}
                      {call.isError ? ' · error' : ''}
                    </span>
                  </div>
                  {call.decisions.map((decision) => (
                    <Decision key={decision.sequence} event={decision} />
                  ))}
                  {change ? <FileDiff {...change} /> : <FoldedValue label="arguments" value={call.arguments} />}
                  {call.result !== undefined && (
                    <FoldedValue label={call.isError ? 'error' : 'result'} value={call.result} />
                  )}
                </li>
              );
            })}
          </ol>
        )}
      </ShowMore>
    </section>
  );
}
