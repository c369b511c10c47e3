import { createWriteStream } from 'node:fs';
import { toJsonLine } from './to-json-line';
import type { EventObserver, RunEvent } from './types';

/** Options of {@link jsonlSink}. */
export interface JsonlSinkOptions {
  /** Hears every write or serialization error. Without it, the first error is raised by `close()` instead. */
  onError?: (error: unknown) => void;
  /**
   * When more than this many bytes wait to be written (the disk is slower than the run), further events
   * are dropped and reported once via `onError`. Default 64 MiB.
   */
  maxBufferedBytes?: number;
}

/** A JSONL file observer: pass `onEvent` to a run, then `await close()`. */
export interface JsonlSink {
  /** Appends the event as one JSON line. Never throws. Ignored after `close()`. */
  onEvent: EventObserver;
  /**
   * Flushes everything written so far and closes the file. Resolves when the data is on its way to disk;
   * rejects with the first error only when no `onError` was given (so errors are never silently lost).
   * Calling it again returns the same promise.
   */
  close(): Promise<void>;
  /** Events dropped because of `maxBufferedBytes` or an earlier write error. */
  readonly dropped: number;
}

const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

/**
 * Appends one JSON line per event to the file at `path` (created if missing, never truncated). Writes go
 * through a buffered stream, so `onEvent` costs one `JSON.stringify` and no I/O wait. Errors (a missing
 * directory, a full disk, an event that cannot be serialized) never reach the run: they go to `onError`.
 */
export function jsonlSink(path: string, options: JsonlSinkOptions = {}): JsonlSink {
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const stream = createWriteStream(path, { flags: 'a' });
  let firstError: unknown;
  let failed = false;
  let closing: Promise<void> | undefined;
  let dropped = 0;
  let overflowReported = false;

  const report = (error: unknown) => {
    if (firstError === undefined) firstError = error;
    if (!options.onError) return;
    try {
      options.onError(error);
    } catch {
      // A throwing error hook must not reach the run either.
    }
  };
  stream.on('error', (error) => {
    failed = true;
    report(error);
  });

  const onEvent = (event: RunEvent) => {
    if (closing || failed) {
      if (!closing) dropped++;
      return;
    }
    if (stream.writableLength > maxBufferedBytes) {
      dropped++;
      if (!overflowReported) {
        overflowReported = true;
        report(
          new Error(`jsonlSink(${path}): more than ${maxBufferedBytes} bytes waiting to be written; dropping events`),
        );
      }
      return;
    }
    let line: string;
    try {
      line = toJsonLine(event);
    } catch (error) {
      dropped++;
      report(
        new Error(`jsonlSink(${path}): event ${event.sequence} (${event.type}) cannot be serialized`, { cause: error }),
      );
      return;
    }
    stream.write(line);
  };

  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      const settle = () => {
        if (firstError !== undefined && !options.onError) reject(firstError);
        else resolve();
      };
      if (stream.destroyed) return settle();
      stream.end();
      stream.once('close', settle);
    });
    return closing;
  };

  return {
    onEvent,
    close,
    get dropped() {
      return dropped;
    },
  };
}
