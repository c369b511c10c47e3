import type { BatchProgress, BatchResult } from '@bridle/batch';
import cliProgress, { type Options, type Params } from 'cli-progress';
import type { CliOutput } from './cli-io';
import type { Style } from './style';

// A CommonJS module whose `Format` Node cannot see as a named export.
const { Format, Presets, SingleBar } = cliProgress;

/** Shows a batch's progress: a bar on a TTY, one plain line per finished item otherwise. */
export interface BatchProgressView {
  progress(snapshot: BatchProgress): void;
  result(result: BatchResult): void;
  /** A line of its own (a warning): above the bar on a TTY, which is drawn again below it. */
  note(line: string): void;
  /** Draws the last frame (if any) so the summary starts on a clean line. */
  stop(): void;
}

/** Options of {@link createBatchProgressView}. */
export interface BatchProgressOptions {
  /** Items that run at once (`--concurrency`), when this process runs them; unknown for queued items. */
  concurrency?: number;
  /** The clock, in ms; default `Date.now`. */
  now?: () => number;
}

/**
 * Seconds left, estimated from the mean duration of the items that finished: the items left (pending and
 * running alike) take that long each, `concurrency` at a time; without a known concurrency, at the rate
 * items have finished so far. Undefined until an item finished.
 */
export function estimateSecondsLeft(input: {
  finished: number;
  left: number;
  meanDurationMs: number;
  elapsedMs: number;
  concurrency?: number | undefined;
}): number | undefined {
  if (input.finished === 0) return undefined;
  if (input.left === 0) return 0;
  if (input.concurrency !== undefined)
    return (input.left * input.meanDurationMs) / Math.min(input.concurrency, input.left) / 1000;
  return (input.left * input.elapsedMs) / input.finished / 1000;
}

/** Creates a {@link BatchProgressView} on `stream` (usually stderr). */
export function createBatchProgressView(
  stream: CliOutput & NodeJS.WritableStream,
  style: Style,
  total: number,
  options: BatchProgressOptions = {},
): BatchProgressView {
  const now = options.now ?? Date.now;
  const started = now();
  if (stream.isTTY !== true) {
    let done = 0;
    return {
      progress() {},
      result(result) {
        done++;
        const status = result.status === 'completed' ? style.green(result.status) : style.red(result.status);
        const error =
          result.error === undefined ? '' : ` ${style.dim(result.error.replace(/\s+/g, ' ').slice(0, 160))}`;
        stream.write(
          `[${done}/${total}] ${result.id} ${status} (${result.attempts} ${result.attempts === 1 ? 'attempt' : 'attempts'}, ${Math.round(result.durationMs)}ms)${error}\n`,
        );
      },
      note(line) {
        stream.write(`${line}\n`);
      },
      stop() {},
    };
  }
  let snapshot: BatchProgress = {
    total,
    done: 0,
    succeeded: 0,
    failed: 0,
    aborted: 0,
    running: 0,
    pending: total,
    retries: 0,
  };
  let durationSum = 0;
  let durations = 0;
  // The estimate made at the last change, counted down between changes.
  let estimate: { seconds: number; at: number } | undefined;
  const finished = () => snapshot.succeeded + snapshot.failed;
  const remake = () => {
    const left = total - finished() - snapshot.aborted;
    const seconds = estimateSecondsLeft({
      finished: durations,
      left,
      meanDurationMs: durations === 0 ? 0 : durationSum / durations,
      elapsedMs: now() - started,
      concurrency: options.concurrency,
    });
    estimate = seconds === undefined ? undefined : { seconds, at: now() };
  };
  const format = (barOptions: Options, params: Params, payload: Record<string, unknown>) => {
    // Items the batch's abort ended are not done: the last frame after Ctrl-C says how many are left.
    const parts = [`${finished()}/${total} done`, `${snapshot.failed} failed`];
    if (snapshot.aborted > 0) parts.push(`${snapshot.aborted} not finished`);
    const seconds = (now() - started) / 1000;
    parts.push(`${seconds > 0 ? (finished() / seconds).toFixed(1) : '0.0'}/s`);
    if (snapshot.aborted === 0) {
      const left = estimate === undefined ? undefined : estimate.seconds - (now() - estimate.at) / 1000;
      parts.push(`ETA ${left === undefined ? '…' : Format.TimeFormat(Math.max(0, Math.round(left)), barOptions, 1)}`);
    }
    return Format.Formatter({ ...barOptions, format: `{bar} ${parts.join(' · ')}` }, params, payload);
  };
  const bar = new SingleBar(
    // Redrawn every frame (10 a second): the ETA counts down between changes, and a note moves the bar down.
    { stream: stream as NodeJS.WritableStream, format, hideCursor: true, fps: 10, forceRedraw: true },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    progress(next) {
      snapshot = next;
      remake();
      bar.update(finished());
    },
    result(result) {
      if (result.status === 'aborted') return;
      durationSum += result.durationMs;
      durations++;
    },
    note(line) {
      // The bar's line is cleared, the note written in its place, and the bar drawn again on the next line.
      // The bar saved the cursor's position when it started and restores it when it stops: save it again
      // here (DECSC), or its last frame and the summary after it would be written over the note.
      stream.write(`\r\u001b[2K${line}\n\u001b7`);
      bar.render();
    },
    stop() {
      bar.stop();
    },
  };
}
