import spinners from 'cli-spinners';
import { createLogUpdate } from 'log-update';
import type { CliOutput } from './cli-io';
import { drawLive, type LiveState } from './live-view';
import type { Style } from './style';

/**
 * The bottom of a terminal that is redrawn in place (the Markdown block still arriving and the activity line),
 * below everything written for good. Output that stays goes through {@link LiveRegion.print}, which clears the
 * region first and draws it again after.
 */
export interface LiveRegion {
  /**
   * Changes what the region shows; drawn at the next spinner frame. A `draft` function is called only when drawing
   * (rendering a growing block at every token would cost more than the redraws).
   */
  update(change: LiveChange): void;
  /** Clears the region, calls `write` (output that stays), then draws the region again. */
  print(write: () => void): void;
  /** Clears the region and stops drawing it until {@link LiveRegion.resume} (a question is being asked). */
  pause(): void;
  resume(): void;
  /** Clears the region for good and stops its timer. */
  stop(): void;
}

/** A change to the {@link LiveState}; the draft may be given as a function that renders it. */
export type LiveChange = Partial<Omit<LiveState, 'draft'>> & { draft?: string | (() => string) };

/** Options of {@link createLiveRegion}. */
export interface LiveRegionOptions {
  /** The terminal the region is drawn on (the CLI uses stderr, so stdout keeps only the answer). */
  stream: CliOutput & NodeJS.WritableStream;
  style: Style;
  /** The clock, for tests; default `Date.now`. */
  now?: () => number;
}

/**
 * A {@link LiveRegion} drawn with log-update, its spinner frames from cli-spinners (`dots`). Only for a terminal:
 * the caller decides (`liveRegionFor`). The timer never keeps the process alive.
 */
export function createLiveRegion(options: LiveRegionOptions): LiveRegion {
  const { stream, style } = options;
  const now = options.now ?? Date.now;
  const spinner = spinners.dots;
  const draw = createLogUpdate(stream, { showCursor: true });
  let state: Omit<LiveState, 'draft'> = { tokens: 0 };
  let draft: string | (() => string) = '';
  let frame = 0;
  let paused = false;
  let stopped = false;
  let shown = false;

  const redraw = () => {
    if (paused || stopped) return;
    const text = drawLive(
      { ...state, draft: typeof draft === 'string' ? draft : draft() },
      { style, frame: spinner.frames[frame % spinner.frames.length] ?? '-', now: now() },
    );
    if (text === '') {
      if (shown) draw.clear();
      shown = false;
      return;
    }
    draw(text);
    shown = true;
  };
  const clear = () => {
    if (shown) draw.clear();
    shown = false;
  };
  const timer = setInterval(() => {
    frame++;
    redraw();
  }, spinner.interval);
  timer.unref();

  return {
    update(change) {
      const { draft: nextDraft, ...rest } = change;
      if (nextDraft !== undefined) draft = nextDraft;
      state = { ...state, ...rest };
    },
    print(write) {
      clear();
      write();
      redraw();
    },
    pause() {
      clear();
      paused = true;
    },
    resume() {
      paused = false;
    },
    stop() {
      clear();
      stopped = true;
      clearInterval(timer);
    },
  };
}
