/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** Longest line kept, in bytes (without its line break). Longer lines are reported, never held. Default 8 MiB. */
  maxLineBytes?: number;
}

/** One line of the input: its text, or only its size when it was longer than the limit. */
export type InputLine =
  | { /** 1-based line number. */ line: number; text: string }
  | {
      /** 1-based line number. */ line: number /** The line's length in bytes; its text was dropped. */;
      tooLongBytes: number;
    };

/** Default of {@link ReadLinesOptions.maxLineBytes}: 8 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Splits a byte stream (a file stream, stdin, any async iterable of chunks) into UTF-8 lines on `\n`,
 * dropping a `\r` before it and a byte-order mark at the start. Memory stays bounded by `maxLineBytes`
 * plus one chunk: a longer line is counted while it streams past and yielded as `{ line, tooLongBytes }`,
 * so a 1 GB line costs no more memory than a short one and the lines after it are still read.
 * A last line without a line break is yielded; an empty input yields nothing.
 */
export async function* readLines(
  input: AsyncIterable<Uint8Array | string>,
  options: ReadLinesOptions = {},
): AsyncGenerator<InputLine, void, undefined> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let parts: Buffer[] = [];
  let size = 0;
  let line = 1;
  let started = false;
  const finish = (): InputLine => {
    const result: InputLine =
      size > maxLineBytes ? { line, tooLongBytes: size } : { line, text: decode(Buffer.concat(parts, size), line) };
    parts = [];
    size = 0;
    line++;
    return result;
  };
  const take = (chunk: Buffer) => {
    // Past the limit only the count grows: the bytes are not kept.
    if (size + chunk.length <= maxLineBytes) parts.push(Buffer.from(chunk));
    else parts = [];
    size += chunk.length;
  };
  for await (const raw of input) {
    const chunk =
      typeof raw === 'string' ? Buffer.from(raw, 'utf8') : Buffer.from(raw.buffer, raw.byteOffset, raw.length);
    started ||= chunk.length > 0;
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      take(chunk.subarray(start, end));
      yield finish();
      start = end + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start));
  }
  if (started && (size > 0 || parts.length > 0)) yield finish();
}

function decode(bytes: Buffer, line: number): string {
  let text = bytes.toString('utf8');
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (line === 1 && text.startsWith('\uFEFF')) text = text.slice(1);
  return text;
}
