import { type JsonTape, tapeJson } from './json-copy';
import type { PreparedEvent, RunTotals } from './prepare-events';

/**
 * An event checked for the `memory:` store: a copy of what the event's JSON says, made without encoding it (a
 * tape, see `jsonCopy`), and its JSON text, made only when asked for (a retried append's comparison). An event
 * that `jsonCopy` does not copy (a Date inside, a class instance) comes with its JSON text from the start.
 */
export class KeptEvent implements PreparedEvent {
  model?: string;
  sessionId?: string;
  tenant?: string;
  status?: string;
  totals?: RunTotals;
  /** A copied `run_start`: the text its run's title comes from (`promptOf`), read as the event is copied. */
  prompt?: string;
  #json: string | undefined;

  /** `kept` is the copy, to keep and never change; undefined when the event comes as text (`json`). */
  constructor(
    readonly sequence: number,
    readonly type: string,
    readonly time: string,
    readonly kept: JsonTape | undefined,
    json?: string,
  ) {
    this.#json = json;
  }

  /** The event's JSON text. */
  get json(): string {
    this.#json ??= tapeJson(this.kept as JsonTape);
    return this.#json;
  }
}
