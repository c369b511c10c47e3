import type { PreparedEvent } from './prepare-events';

/** Most events an insert-only append binds as rows of scalar parameters; a larger batch goes as arrays. */
const APPEND_ROWS_MAX = 8;

/**
 * An append that neither starts nor ends a segment, in one statement that writes its events only: the run's
 * row (five index entries per new version, updated_at being in four) stays as it is. The fence is the row read
 * FOR SHARE: a lease being taken (an UPDATE of the row) and this append wait for each other, and the row is
 * read as last committed, so an append never lands after a newer lease than its token. Nothing is inserted
 * (0 rows) for a run without a journal yet, a newer token, or an event at or below the journal's last: the
 * transaction then sorts it out (a retry, a conflict, a fence).
 * Parameters: $1 the run id, $2 the fencing token (null without a lease), then per event its sequence, type,
 * JSON and time. With `rows` (1 to {@link APPEND_ROWS_MAX}) the events are that many rows of scalars: no
 * array is encoded by the driver (an escaped copy of each event's JSON) nor parsed and unnested by the server.
 * Measured here per append (a loop of 1- and 3-event appends, load 4): 157 µs min / 253 median with the four
 * arrays, 146 / 214 with rows, against 143 / 215 for a bare unfenced INSERT of two arrays. Without `rows`, the
 * four columns come as arrays ($3 to $6).
 */
function appendMidSegment(schema: string, rows?: number): string {
  const events = `${schema}.bridle_run_events`;
  let batch: string;
  let first: string;
  if (rows === undefined) {
    batch = 'unnest($3::integer[], $4::text[], $5::text[], $6::text[])';
    first = '($3::integer[])[1]';
  } else {
    const values = Array.from({ length: rows }, (_, index) => {
      const at = 3 + index * 4;
      return `($${at}::integer, $${at + 1}::text, $${at + 2}::text, $${at + 3}::text)`;
    });
    batch = `(VALUES ${values.join(', ')})`;
    first = '$3::integer';
  }
  return (
    `INSERT INTO ${events} (run_id, sequence, type, data, time) ` +
    `SELECT $1, sequence, type, data, time FROM ${batch} AS batch (sequence, type, data, time) ` +
    `WHERE EXISTS (SELECT 1 FROM ${schema}.bridle_runs WHERE run_id = $1 AND last_sequence >= 0 ` +
    'AND ($2::integer IS NULL OR fencing_token <= $2) FOR SHARE) ' +
    `AND NOT EXISTS (SELECT 1 FROM ${events} WHERE run_id = $1 AND sequence >= ${first})`
  );
}

/**
 * The insert-only append's statements, one text per batch size from 1 to {@link APPEND_ROWS_MAX} and one for
 * larger batches (as arrays), each registered in `names` to be prepared by name.
 */
export class MidSegmentAppend {
  readonly #texts: string[];

  constructor(schema: string, names: Map<string, string>) {
    this.#texts = Array.from({ length: APPEND_ROWS_MAX + 1 }, (_, rows) => {
      const text = appendMidSegment(schema, rows === 0 ? undefined : rows);
      names.set(text, `bridle_append_mid_segment_${rows === 0 ? 'arrays' : rows}`);
      return text;
    });
  }

  /** The statement and its parameters that append `events` to run `runId` under fencing token `token`. */
  query(
    runId: string,
    events: readonly PreparedEvent[],
    token: number | undefined,
  ): { text: string; values: unknown[] } {
    const values: unknown[] = [runId, token ?? null];
    if (events.length <= APPEND_ROWS_MAX) {
      for (const event of events) values.push(event.sequence, event.type, event.json, event.time);
      return { text: this.#texts[events.length] as string, values };
    }
    values.push(
      events.map((event) => event.sequence),
      events.map((event) => event.type),
      events.map((event) => event.json),
      events.map((event) => event.time),
    );
    return { text: this.#texts[0] as string, values };
  }
}
