import type { BatchProgress, BatchResult } from '@bridle/batch';
import { Presets, SingleBar } from 'cli-progress';
import type { CliOutput } from './cli-io';
import type { Style } from './style';

/** Shows a batch's progress: a bar on a TTY, one plain line per finished item otherwise. */
export interface BatchProgressView {
  progress(snapshot: BatchProgress): void;
  result(result: BatchResult): void;
  /** Removes the bar (if any) so the summary starts on a clean line. */
  stop(): void;
}

/** Creates a {@link BatchProgressView} on `stream` (usually stderr). */
export function createBatchProgressView(
  stream: CliOutput & NodeJS.WritableStream,
  style: Style,
  total: number,
): BatchProgressView {
  const started = Date.now();
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
      stop() {},
    };
  }
  const bar = new SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format: '{bar} {value}/{total} done · {failed} failed · {rate}/s · ETA {eta_formatted}',
      hideCursor: true,
      etaBuffer: 20,
      fps: 10,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0, { failed: 0, rate: '0.0' });
  return {
    progress(snapshot) {
      const seconds = (Date.now() - started) / 1000;
      bar.update(snapshot.done, {
        failed: snapshot.failed,
        rate: seconds > 0 ? (snapshot.done / seconds).toFixed(1) : '0.0',
      });
    },
    result() {},
    stop() {
      bar.stop();
    },
  };
}
