import type { JournalRow } from './decode-run';
import { jsonCopy } from './json-copy';
import type { PreparedEvent, RunTotals } from './prepare-events';

/**
 * An event checked for the `memory:` store and kept as its journal row: a copy equal to the event's JSON read
 * back, made when it was appended (no encoding on the append path), and its JSON text, made when first
 * needed (comparing a retried append, corrupting a row in a test). An event that {@link jsonCopy} does not
 * copy (a Date inside, a class instance) is kept as its JSON text from the start.
 */
export class KeptEvent implements PreparedEvent, JournalRow {
  model?: string;
  sessionId?: string;
  tenant?: string;
  status?: string;
  totals?: RunTotals;
  #copy: object | undefined;
  #json: string | undefined;

  constructor(
    readonly sequence: number,
    readonly type: string,
    readonly time: string,
    encoded: { copy: object } | { json: string },
  ) {
    this.#copy = 'copy' in encoded ? encoded.copy : undefined;
    this.#json = 'json' in encoded ? encoded.json : undefined;
  }

  /** The event's JSON text. */
  get json(): string {
    this.#json ??= JSON.stringify(this.#copy);
    return this.#json;
  }

  /** Replaces the stored event by `text` (the conformance suite's damaged row). */
  set json(text: string) {
    this.#json = text;
    this.#copy = undefined;
  }

  /** The kept copy itself, to read and never change; undefined when the event is kept as text. */
  get kept(): object | undefined {
    return this.#copy;
  }

  /** A fresh copy of the event, as reading it back gives. Throws a `SyntaxError` for damaged text. */
  value(): unknown {
    const copy = this.#copy;
    if (copy === undefined) return JSON.parse(this.json);
    return (jsonCopy(copy, Number.POSITIVE_INFINITY) as { value: unknown }).value;
  }
}
