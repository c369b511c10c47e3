import type { JournalRow } from './decode-run';
import { type JsonTape, readTape, tapeField, tapeJson } from './json-copy';
import type { KeptEvent } from './kept-event';

/** A journal row of `memory:` kept as text: an event that only JSON could copy, or one a test damaged. */
export class TextRow {
  constructor(
    readonly sequence: number,
    public json: string,
  ) {}
}

/** A journal row of `memory:` kept as the event's copy (a tape: one array, whatever the event holds). */
export class TapeRow {
  constructor(
    readonly sequence: number,
    readonly type: string,
    readonly tape: JsonTape,
  ) {}
}

/** A journal row of the `memory:` store: the event's copy, or its text. */
export type MemoryRow = TapeRow | TextRow;

/** The row that keeps a checked event: its copy, or its text. */
export function rowOf(event: KeptEvent): MemoryRow {
  return event.kept === undefined
    ? new TextRow(event.sequence, event.json)
    : new TapeRow(event.sequence, event.type, event.kept);
}

/** A fresh copy of the row's event. Throws a `SyntaxError` for damaged text. */
export function eventOf(row: MemoryRow): { type?: unknown } {
  return (row instanceof TextRow ? JSON.parse(row.json) : readTape(row.tape)) as { type?: unknown };
}

/** One top-level field of the row's event (a fresh copy), reading nothing else of a copy. */
export function fieldOf(row: MemoryRow, key: string): unknown {
  return row instanceof TextRow ? (JSON.parse(row.json) as Record<string, unknown>)[key] : tapeField(row.tape, key);
}

/** The row's JSON text (made on each call for a copy: only a retried append compares it). */
export function jsonOf(row: MemoryRow): string {
  return row instanceof TextRow ? row.json : tapeJson(row.tape);
}

/** The row as `decodeRun` reads it: a fresh copy of the event, or its text. */
export function journalRow(row: MemoryRow): JournalRow {
  if (row instanceof TextRow) return row;
  return {
    sequence: row.sequence,
    get json() {
      return tapeJson(row.tape);
    },
    value: () => readTape(row.tape),
  };
}
