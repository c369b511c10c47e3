import type { PreparedEvent, RunTotals } from './prepare-events';

/**
 * An event checked for the `memory:` store: a copy equal to the event's JSON read back, made without encoding
 * it, and its JSON text, made only when asked for (a retried append's comparison). An event that `jsonCopy`
 * does not copy (a Date inside, a class instance) comes with its JSON text from the start.
 */
export class KeptEvent implements PreparedEvent {
  model?: string;
  sessionId?: string;
  tenant?: string;
  status?: string;
  totals?: RunTotals;
  #json: string | undefined;

  constructor(
    readonly sequence: number,
    readonly type: string,
    readonly time: string,
    encoded: { copy: object } | { json: string },
  ) {
    this.kept = 'copy' in encoded ? encoded.copy : undefined;
    this.#json = 'json' in encoded ? encoded.json : undefined;
  }

  /** The copy, to keep and never change; undefined when the event comes as text. */
  readonly kept: object | undefined;

  /** The event's JSON text. */
  get json(): string {
    this.#json ??= JSON.stringify(this.kept);
    return this.#json;
  }
}
