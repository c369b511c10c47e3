import { formatUsd } from './format-usd';
import type { Style } from './style';

/** What the run is doing now, for the activity line. */
export interface Activity {
  /** `thinking`, `writing`, `retrying`, or a tool with its gist (`run_command test`). */
  label: string;
  /** When this activity began (milliseconds since the epoch). */
  startedAt: number;
  /** The model step the run is on (1-based). */
  step: number;
}

/** Everything the live part of the screen shows: a pure value, drawn by {@link drawLive}. */
export interface LiveState {
  /** The Markdown block still arriving, already rendered ('' when none). */
  draft: string;
  /** Absent when nothing is in progress (no activity line is drawn). */
  activity?: Activity | undefined;
  /** Tokens (input + output) and cost of the run so far. */
  tokens: number;
  costUsd?: number | undefined;
}

/** Options of {@link drawLive}. */
export interface DrawLiveOptions {
  style: Style;
  /** The spinner's current frame. */
  frame: string;
  /** The clock (milliseconds since the epoch). */
  now: number;
}

/**
 * The live region's text for `state`: the draft block, then one activity line
 * (`⠋ thinking · 3s · step 2 · 1,234 tokens · $0.0012`). Never ends with a newline; '' when there is nothing to show.
 */
export function drawLive(state: LiveState, options: DrawLiveOptions): string {
  const { style } = options;
  const lines: string[] = [];
  if (state.draft !== '') lines.push(state.draft);
  if (state.activity) {
    const { label, startedAt, step } = state.activity;
    const seconds = Math.max(0, Math.floor((options.now - startedAt) / 1000));
    const cost = state.costUsd === undefined ? '' : ` · ${formatUsd(state.costUsd)}`;
    const facts = ` · ${seconds}s · step ${step} · ${state.tokens.toLocaleString('en-US')} tokens${cost}`;
    lines.push(`${style.cyan(options.frame)} ${label}${style.dim(facts)}`);
  }
  return lines.join('\n');
}
