import type { RunEvent } from '@bridle/events';
import type { Usage } from '@bridle/protocol';
import type { CliOutput } from './cli-io';
import type { StreamedMarkdown } from './streamed-markdown';
import type { Style } from './style';

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
  const maxWidth = options.maxWidth ?? 120;
  let lineOpen = false;
  const streamedSteps = new Set<number>();
  const markdown = options.markdown?.();

  function text(chunk: string): void {
    if (chunk === '') return;
    stdout.write(chunk);
    lineOpen = !chunk.endsWith('\n');
  }
  /** The model's text: as it came, or its completed Markdown blocks rendered. */
  function modelText(chunk: string): void {
    text(markdown ? markdown.push(chunk) : chunk);
  }
  /** Writes the rest of the model's Markdown (a step ended, or a line on stderr must come after it). */
  function flushModelText(): void {
    if (markdown) text(markdown.flush());
  }
  function line(message: string): void {
    flushModelText();
    if (lineOpen) {
      stdout.write('\n');
      lineOpen = false;
    }
    stderr.write(`${message}\n`);
  }

  return {
    onEvent(event) {
      switch (event.type) {
        case 'text_delta':
          streamedSteps.add(event.step);
          modelText(event.text);
          break;
        case 'model_end':
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
          break;
        case 'tool_end': {
          const result = summarizeCommandResult(event.result, maxWidth) ?? oneLinePreview(event.result, maxWidth);
          const took = style.dim(`${Math.round(event.durationMs)}ms`);
          line(
            event.isError
              ? style.red(`✗ ${event.name} ${took} ${result}`)
              : `${style.green('←')} ${event.name} ${took} ${style.dim(result)}`,
          );
          break;
        }
        default:
          break;
      }
    },
    finish(outcome) {
      const cost = outcome.usage.costUsd === undefined ? '' : ` · ${formatUsd(outcome.usage.costUsd)}`;
      const usage = `${outcome.usage.inputTokens} in / ${outcome.usage.outputTokens} out tokens${cost}`;
      const counts = `${outcome.steps} ${outcome.steps === 1 ? 'step' : 'steps'} · ${outcome.toolCalls} tool ${outcome.toolCalls === 1 ? 'call' : 'calls'} · ${usage}`;
      if (outcome.status === 'completed') line(style.dim(`${style.green('✓')} completed · ${counts}`));
      else
        line(style.red(`✗ ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`) + style.dim(` · ${counts}`));
    },
  };
}

/** US dollars for a summary line: cents from a dollar up, else three significant digits ($0.00123). */
export function formatUsd(amount: number): string {
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount < 0.00001) return amount === 0 ? '$0' : '<$0.00001';
  return `$${Number(amount.toPrecision(3))}`;
}
