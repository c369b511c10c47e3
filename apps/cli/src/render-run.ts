import type { RunEvent } from '@bridle/events';
import { displayText } from '@bridle/models';
import type { Usage } from '@bridle/protocol';
import type { CliOutput } from './cli-io';
import { diffView } from './diff-view';
import { formatUsd } from './format-usd';
import type { LiveRegion } from './live-region';
import type { StreamedMarkdown } from './streamed-markdown';
import type { Style } from './style';
import { workspaceText } from './workspace-text';

const FILE_TOOLS = new Set(['edit_file', 'write_file']);

/** Options of {@link createRunRenderer}. */
export interface RunRendererOptions {
  /** Model text goes here as it streams. */
  stdout: CliOutput;
  /** Tool calls, results, retries and the final status line go here. */
  stderr: CliOutput;
  /** Styling of the `stderr` lines. */
  style: Style;
  /** Longest rendering of tool arguments and results, in characters; default 120. */
  maxWidth?: number;
  /**
   * Renders the model's Markdown (block by block as it streams; one stream per step) instead of writing it as it
   * came. Give it only for a colour terminal (`markdownFor`); without it the text goes out unchanged.
   */
  markdown?: (() => StreamedMarkdown) | undefined;
  /**
   * The terminal's live region (`liveRegionFor`): the Markdown block still arriving is drawn there as it grows, with
   * an activity line (spinner, what is happening, elapsed time, step, tokens, cost). Give it only with `markdown`.
   */
  live?: LiveRegion | undefined;
  /**
   * The workspace's real path: each `edit_file` and `write_file` that succeeded is followed by the diff it made
   * (read just before and after the tool ran). Give it only for a person's terminal.
   */
  workspaceRoot?: string | undefined;
}

/** The outcome line's inputs (an `AgentResult` fits). */
export interface RunOutcome {
  status: string;
  steps: number;
  toolCalls: number;
  usage: Usage;
  error?: string;
}

/** Renders a run for a human: the model's text streams to stdout, everything else is a compact stderr line. */
export interface RunRenderer {
  onEvent(event: RunEvent): void;
  /** Writes a final answer that no event streamed (a run that had already ended), as the model's text. */
  answer(text: string): void;
  /** Ends any open text line and writes the outcome line to stderr. */
  finish(outcome: RunOutcome): void;
}

/** One line, at most `max` characters: strings verbatim, other values as JSON, whitespace collapsed. */
export function oneLinePreview(value: unknown, max: number): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/**
 * A command tool result (`{ exitCode, signal, stdout, stderr, timedOut, ... }` as JSON) as one line:
 * `exit 1 · <the end of its output>`, keeping the end because that is where test runners summarize.
 * Undefined for any other result.
 */
export function summarizeCommandResult(result: string, max: number): string | undefined {
  if (!result.startsWith('{') || !result.includes('"exitCode"')) return undefined;
  let value: { exitCode?: unknown; signal?: unknown; stdout?: unknown; stderr?: unknown; timedOut?: unknown };
  try {
    value = JSON.parse(result);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('exitCode' in value)) return undefined;
  const status =
    value.timedOut === true
      ? 'timed out'
      : typeof value.signal === 'string'
        ? `killed by ${value.signal}`
        : `exit ${String(value.exitCode)}`;
  const output = [value.stdout, value.stderr]
    .filter((text): text is string => typeof text === 'string')
    .join('\n')
    .replace(/\s+/g, ' ')
    .trim();
  const room = Math.max(0, max - status.length - 3);
  const tail = output.length > room ? `…${output.slice(output.length - room + 1)}` : output;
  return tail === '' ? status : `${status} · ${tail}`;
}

/** Builds a {@link RunRenderer}. */
export function createRunRenderer(options: RunRendererOptions): RunRenderer {
  const { stdout, stderr, style } = options;
  const live = options.markdown ? options.live : undefined;
  const maxWidth = options.maxWidth ?? 120;
  let lineOpen = false;
  // With a live region below it, the answer's last line is ended at once (the region must start on a line of its
  // own); the newline that later text would have begun with is then dropped.
  let newlineWritten = false;
  const streamedSteps = new Set<number>();
  const markdown = options.markdown?.();
  const totals = { tokens: 0, costUsd: undefined as number | undefined };
  const { workspaceRoot } = options;
  /** Files as they were when an edit started, by call id. */
  const before = new Map<string, { path: string; text: string | undefined }>();

  function writeText(chunk: string): void {
    if (!live) {
      stdout.write(chunk);
      lineOpen = !chunk.endsWith('\n');
      return;
    }
    let output = newlineWritten && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
    newlineWritten = false;
    if (output === '') return;
    if (!output.endsWith('\n')) {
      output += '\n';
      newlineWritten = true;
    }
    live.print(() => stdout.write(output));
  }
  function text(chunk: string): void {
    if (chunk !== '') writeText(chunk);
  }
  /** The model's text: as it came, or its completed Markdown blocks rendered. */
  function modelText(chunk: string): void {
    text(markdown ? markdown.push(chunk) : chunk);
    if (live && markdown) live.update({ draft: () => markdown.preview().replace(/^\n/, '') });
  }
  /** Writes the rest of the model's Markdown (a step ended, or a line on stderr must come after it). */
  function flushModelText(): void {
    if (!markdown) return;
    text(markdown.flush());
    live?.update({ draft: '' });
  }
  function line(message: string): void {
    flushModelText();
    const write = () => {
      if (lineOpen) {
        stdout.write('\n');
        lineOpen = false;
      }
      stderr.write(`${message}\n`);
    };
    if (live) live.print(write);
    else write();
  }
  function activity(label: string | undefined, step: number): void {
    live?.update({ activity: label === undefined ? undefined : { label, step, startedAt: Date.now() } });
  }

  return {
    onEvent(event) {
      switch (event.type) {
        case 'model_start':
          activity(event.attempt > 1 ? 'retrying' : 'thinking', event.step);
          break;
        case 'text_delta':
          if (!streamedSteps.has(event.step)) activity('writing', event.step);
          streamedSteps.add(event.step);
          modelText(event.text);
          break;
        case 'model_end':
          totals.tokens += event.usage.inputTokens + event.usage.outputTokens;
          if (event.usage.costUsd !== undefined) totals.costUsd = (totals.costUsd ?? 0) + event.usage.costUsd;
          live?.update({ tokens: totals.tokens, costUsd: totals.costUsd });
          activity(undefined, event.step);
          // A model without `stream` sends no deltas: show its text once the step ends.
          if (!streamedSteps.has(event.step)) modelText(event.content);
          flushModelText();
          if (event.toolCalls > 0 && lineOpen) text('\n');
          break;
        case 'model_error':
          // A failure that ends the run is printed once, by the outcome line (`✗ model_error: ...`).
          if (event.willRetry) line(style.yellow(`! ${event.error} (attempt ${event.attempt}, retrying)`));
          break;
        case 'tool_start':
          line(style.cyan(`→ ${event.name} ${oneLinePreview(event.arguments, maxWidth)}`));
          activity(toolGist(event.name, event.arguments), event.step);
          if (workspaceRoot !== undefined && FILE_TOOLS.has(event.name)) {
            const path = (event.arguments as { path?: unknown } | null)?.path;
            if (typeof path === 'string') before.set(event.callId, { path, text: workspaceText(workspaceRoot, path) });
          }
          break;
        case 'tool_end': {
          activity(undefined, event.step);
          const result = summarizeCommandResult(event.result, maxWidth) ?? oneLinePreview(event.result, maxWidth);
          const took = style.dim(`${Math.round(event.durationMs)}ms`);
          line(
            event.isError
              ? style.red(`✗ ${event.name} ${took} ${result}`)
              : `${style.green('←')} ${event.name} ${took} ${style.dim(result)}`,
          );
          const edited = before.get(event.callId);
          before.delete(event.callId);
          const after = edited && workspaceRoot !== undefined ? workspaceText(workspaceRoot, edited.path) : undefined;
          if (edited && after !== undefined && !event.isError) {
            const shown = diffView({ path: edited.path, before: edited.text, after }, { style });
            if (shown !== '') line(shown);
          }
          break;
        }
        case 'input':
          // Steering (`bridle steer`, `bridle attach`, the API): the user message the run takes at this boundary.
          line(
            style.cyan(`» ${event.by === undefined ? '' : `${displayText(event.by)}: `}${displayText(event.content)}`),
          );
          break;
        default:
          break;
      }
    },
    answer(answer) {
      modelText(answer);
      flushModelText();
    },
    finish(outcome) {
      flushModelText();
      live?.stop();
      const cost = outcome.usage.costUsd === undefined ? '' : ` · ${formatUsd(outcome.usage.costUsd)}`;
      const usage = `${outcome.usage.inputTokens} in / ${outcome.usage.outputTokens} out tokens${cost}`;
      const counts = `${outcome.steps} ${outcome.steps === 1 ? 'step' : 'steps'} · ${outcome.toolCalls} tool ${outcome.toolCalls === 1 ? 'call' : 'calls'} · ${usage}`;
      if (outcome.status === 'completed') line(style.dim(`${style.green('✓')} completed · ${counts}`));
      else
        line(style.red(`✗ ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`) + style.dim(` · ${counts}`));
    },
  };
}

export { formatUsd };

/** A tool call in a few words for the activity line: its name and first short string argument (`run_command test`). */
export function toolGist(name: string, args: unknown): string {
  const first =
    typeof args === 'object' && args !== null
      ? Object.values(args).find((value): value is string => typeof value === 'string')
      : undefined;
  return first === undefined ? name : `${name} ${oneLinePreview(first, 40)}`;
}
