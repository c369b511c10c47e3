import { closeSync, createReadStream, existsSync, fsyncSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { type BatchResult, readLines } from '@bridle/batch';

/** One line of the results file. */
export interface ResultLine {
  id: string;
  status: string;
  answer?: string;
  error?: string;
  output?: unknown;
  attempts: number;
  steps: number;
  toolCalls: number;
  usage: { inputTokens: number; outputTokens: number };
  /** The run's id (in the store's journal: `bridle runs`, `bridle resume`), when it started. */
  runId?: string;
  durationMs: number;
}

/** Longest results line read back, in bytes; a longer one is not recognised (its item runs again). */
export const MAX_RESULT_LINE_BYTES = 64 * 1024 * 1024;

/**
 * The ids already recorded in a results file (every status but `aborted`, which is run again; with
 * `retryFailed`, only `completed` ones, the last line of an id deciding). A last
 * line cut by a crash is ignored, so that item runs again. Read line by line with bounded memory.
 */
export async function readDoneIds(path: string, options: { retryFailed?: boolean } = {}): Promise<Set<string>> {
  const done = new Set<string>();
  if (!existsSync(path)) return done;
  for await (const entry of readLines(createReadStream(path, { highWaterMark: 1024 * 1024 }), {
    maxLineBytes: MAX_RESULT_LINE_BYTES,
  })) {
    if (!('text' in entry)) continue;
    const text = entry.text;
    if (text.trim() === '') continue;
    try {
      const record = JSON.parse(text) as Partial<ResultLine>;
      if (typeof record.id !== 'string' || typeof record.status !== 'string' || record.status === 'aborted') continue;
      // With retryFailed only completed items count as done; the last line for an id decides.
      if (options.retryFailed && record.status !== 'completed') done.delete(record.id);
      else done.add(record.id);
    } catch {
      // A line cut short by a crash: its item was not durably recorded, so it runs again.
    }
  }
  return done;
}

/** The result as written to the results file. */
export function toResultLine(result: BatchResult): ResultLine {
  return {
    id: result.id,
    status: result.status,
    ...(result.answer === undefined ? {} : { answer: result.answer }),
    ...(result.error === undefined ? {} : { error: result.error }),
    ...(result.output === undefined ? {} : { output: result.output }),
    attempts: result.attempts,
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    ...(result.runId === undefined ? {} : { runId: result.runId }),
    durationMs: Math.round(result.durationMs),
  };
}

/** Appends one JSON line per result, each written with one `write` and flushed to disk (`fsync`) before returning. */
export interface ResultAppender {
  append(line: ResultLine): void;
  close(): void;
}

/** Opens `path` for appending (creating it); when a crash left a cut last line, starts on a new line. */
export function openResultAppender(path: string): ResultAppender {
  const needsNewline = existsSync(path) && endsWithoutNewline(path);
  const fd = openSync(path, 'a');
  if (needsNewline) writeSync(fd, '\n');
  return {
    append(line) {
      writeSync(fd, `${JSON.stringify(line)}\n`);
      fsyncSync(fd);
    },
    close() {
      closeSync(fd);
    },
  };
}

function endsWithoutNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return false;
  const fd = openSync(path, 'r');
  try {
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
