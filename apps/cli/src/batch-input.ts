import { createReadStream } from 'node:fs';
import { type BatchItem, readLines } from '@bridle/batch';
import { describeValue } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';

/** A line of the input that could not be used, with its 1-based line number. */
export interface BadLine {
  line: number;
  error: string;
}

/** A batch input item with the line it came from. */
export interface InputItem extends BatchItem {
  id: string;
  /** 1-based line number in the input file. */
  line: number;
}

const NUMBER_FIELDS = ['maxSteps', 'maxToolCalls', 'timeoutMs'] as const;

/**
 * Longest input line, in bytes (8 MiB): far beyond any model's context, and bounds what one item holds.
 * Lines are read with a bounded reader, so a longer line is never held in memory whole.
 */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** The bad-line report of a line longer than {@link MAX_LINE_BYTES}. */
export function tooLongLine(line: number, bytes: number): BadLine {
  return {
    line,
    error: `the line is ${(bytes / 1024 / 1024).toFixed(1)} MiB long, more than the ${MAX_LINE_BYTES / 1024 / 1024} MiB limit per item: shorten the prompt or split it`,
  };
}

/** Parses one JSONL line into an item, or says what is wrong with it. Blank lines give `undefined`. */
export function parseInputLine(text: string, line: number): InputItem | BadLine | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_LINE_BYTES) return tooLongLine(line, bytes);
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `not valid JSON (${errorMessage(error)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, error: `expected an object like {"id": "a", "prompt": "..."}, got ${describeValue(value)}` };
  }
  const record = value as Record<string, unknown>;
  const id =
    record.id === undefined
      ? `line-${line}`
      : typeof record.id === 'number' && Number.isFinite(record.id)
        ? String(record.id)
        : record.id;
  if (typeof id !== 'string' || id === '')
    return { line, error: `"id" must be a non-empty string or a number, got ${describeValue(record.id)}` };
  const hasPrompt = record.prompt !== undefined;
  if (hasPrompt === (record.messages !== undefined))
    return { line, error: 'needs exactly one of "prompt" (a string) or "messages" (an array)' };
  if (hasPrompt && (typeof record.prompt !== 'string' || record.prompt.trim() === '')) {
    return { line, error: `"prompt" must be a non-empty string, got ${describeValue(record.prompt)}` };
  }
  if (!hasPrompt && !Array.isArray(record.messages))
    return { line, error: `"messages" must be an array, got ${describeValue(record.messages)}` };
  if (record.system !== undefined && typeof record.system !== 'string')
    return { line, error: `"system" must be a string, got ${describeValue(record.system)}` };
  for (const field of NUMBER_FIELDS) {
    if (record[field] !== undefined && typeof record[field] !== 'number')
      return { line, error: `"${field}" must be a number, got ${describeValue(record[field])}` };
  }
  const item: InputItem = { id, line };
  if (hasPrompt) item.prompt = record.prompt as string;
  else item.messages = record.messages as InputItem['messages'];
  if (record.system !== undefined) item.system = record.system as string;
  for (const field of NUMBER_FIELDS) if (record[field] !== undefined) item[field] = record[field] as number;
  return item;
}

/**
 * Reads JSONL input (a file path, or a stream such as stdin): the usable items and the bad lines (duplicate ids and lines over
 * {@link MAX_LINE_BYTES} are bad lines too). Memory per line is bounded whatever the file holds.
 */
export async function readBatchInput(
  source: string | AsyncIterable<Uint8Array | string>,
): Promise<{ items: InputItem[]; bad: BadLine[] }> {
  const items: InputItem[] = [];
  const bad: BadLine[] = [];
  const firstLineOf = new Map<string, number>();
  const input = typeof source === 'string' ? createReadStream(source, { highWaterMark: 1024 * 1024 }) : source;
  for await (const entry of readLines(input, {
    maxLineBytes: MAX_LINE_BYTES,
  })) {
    const line = entry.line;
    const parsed = 'text' in entry ? parseInputLine(entry.text, line) : tooLongLine(line, entry.tooLongBytes);
    if (parsed === undefined) continue;
    if ('error' in parsed) bad.push(parsed);
    else if (firstLineOf.has(parsed.id))
      bad.push({ line, error: `duplicate id "${parsed.id}" (first on line ${firstLineOf.get(parsed.id)})` });
    else {
      firstLineOf.set(parsed.id, line);
      items.push(parsed);
    }
  }
  return { items, bad };
}
