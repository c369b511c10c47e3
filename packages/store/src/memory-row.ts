import type { JournalRow } from './decode-run';
import { jsonCopy } from './json-copy';
import type { KeptEvent } from './kept-event';

/** A journal row of `memory:` kept as text: an event that only JSON could copy, or one a test damaged. */
export class TextRow {
  constructor(
    readonly sequence: number,
    public json: string,
  ) {}
}

/** An event of `memory:` kept as its copy: the event's own fields, `sequence` and `type` among them. */
export type CopyRow = { readonly sequence: number; readonly type: string };

/**
 * A journal row of the `memory:` store: the event's copy itself (nothing around it, so a journal holds as few
 * objects as it can, which is what a garbage collection pays for), or its text.
 */
export type MemoryRow = CopyRow | TextRow;

/** The row that keeps a checked event: its copy, or its text. */
export function rowOf(event: KeptEvent): MemoryRow {
  return (event.kept as CopyRow | undefined) ?? new TextRow(event.sequence, event.json);
}

/** The row's event, parsed or as kept (to read and never change). Throws a `SyntaxError` for damaged text. */
export function eventOf(row: MemoryRow): { type?: unknown } {
  return row instanceof TextRow ? (JSON.parse(row.json) as { type?: unknown }) : row;
}

/** The row's JSON text (made on each call for a copy: only a retried append compares it). */
export function jsonOf(row: MemoryRow): string {
  return row instanceof TextRow ? row.json : JSON.stringify(row);
}

/** The row as `decodeRun` reads it: a fresh copy of the event, or its text. */
export function journalRow(row: MemoryRow): JournalRow {
  if (row instanceof TextRow) return row;
  return {
    sequence: row.sequence,
    get json() {
      return JSON.stringify(row);
    },
    value: () => (jsonCopy(row, Number.POSITIVE_INFINITY) as { value: unknown }).value,
  };
}
