import type { Usage } from '@bridle/protocol';
import type { RunEvent } from './types';

/** A style the console sink may apply to a piece of a line. */
export type EventStyle = 'dim' | 'bold' | 'red' | 'green' | 'yellow' | 'cyan';

/** Applies a style; the identity when color is off. */
export type Stylize = (style: EventStyle, text: string) => string;

const plain: Stylize = (_style, text) => text;
const PREVIEW_CHARS = 80;

/**
 * Makes `text` safe and short for one terminal line: control characters (including ESC, so no terminal
 * escape sequence from a model or tool gets through) become visible escapes, and the text is cut to
 * `max` characters with an ellipsis.
 */
export function preview(text: string, max = PREVIEW_CHARS): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) =>
    char === '\n' ? '\\n' : char === '\t' ? '\\t' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(1)}s`;
}

function formatUsage(usage: Usage): string {
  return `${usage.inputTokens} in / ${usage.outputTokens} out tokens`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function jsonPreview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = '[unserializable]';
  }
  return preview(text);
}

/**
 * One readable line for an event (without a trailing newline), or `undefined` for events the console
 * does not show (`text_delta`). Used by `consoleSink`; exported for custom sinks.
 */
export function formatEvent(event: RunEvent, style: Stylize = plain): string | undefined {
  const step = 'step' in event ? style('dim', `step ${event.step} · `) : '';
  switch (event.type) {
    case 'run_start':
      return `${style('bold', 'run')} ${event.runId} ${style('dim', 'started · model')} ${event.model}`;
    case 'model_start':
      return `${step}model call${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}`;
    case 'model_end':
      return `${step}model answered in ${formatDuration(event.durationMs)} · ${plural(event.toolCalls, 'tool call')} · ${formatUsage(event.usage)}`;
    case 'model_error':
      return `${step}${style('red', 'model error')}${event.code ? ` [${event.code}]` : ''}: ${preview(event.error)}${event.willRetry ? style('yellow', ' (retrying)') : ''}`;
    case 'tool_start':
      return `${step}${style('cyan', event.name)} ${style('dim', jsonPreview(event.arguments))}`;
    case 'tool_end': {
      const outcome = event.isError ? style('red', 'failed') : style('green', 'ok');
      return `${step}${style('cyan', event.name)} ${outcome} in ${formatDuration(event.durationMs)}: ${style('dim', preview(event.result))}`;
    }
    case 'text_delta':
      return undefined;
    case 'approval_requested':
      // Call ids come from the model: shown through preview, like every other text it controls.
      return `${step}${style('yellow', 'approval asked')} for ${style('cyan', preview(event.name))} (${preview(event.callId)})${event.deadline === undefined ? '' : style('dim', ` · decide by ${preview(event.deadline)}`)}`;
    case 'approval_decided': {
      const outcome = event.approved ? style('green', 'approved') : style('red', 'denied');
      return `call ${preview(event.callId)} ${outcome} by ${event.decidedBy}${event.by === undefined ? '' : ` (${preview(event.by)})`}`;
    }
    case 'input':
      return `${style('bold', 'input')}${event.by === undefined ? '' : style('dim', ` from ${event.by}`)}: ${preview(event.content)}`;
    case 'run_end': {
      const color =
        event.status === 'completed'
          ? 'green'
          : event.status === 'step_limit' || event.status === 'tool_limit'
            ? 'yellow'
            : 'red';
      const parts = [
        `${style('bold', 'run')} ${style(color, event.status)} in ${formatDuration(event.durationMs)}`,
        plural(event.steps, 'step'),
        plural(event.toolCalls, 'tool call'),
        formatUsage(event.usage),
      ];
      const line = parts.join(' · ');
      return event.error === undefined ? line : `${line}\n  ${style('red', 'error')}: ${preview(event.error, 400)}`;
    }
  }
}
