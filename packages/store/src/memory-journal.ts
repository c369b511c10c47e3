import { jsonOf, type MemoryRow } from './memory-row';
import type { JournaledEvents } from './plan-append';

/** An empty journal (a run not kept yet). */
export const NO_ROWS: readonly MemoryRow[] = [];

/**
 * The journaled JSON of a journal's events (in sequence order) by sequence, found by binary search. One per
 * store, pointed at the run appended to (an object per append cost measurably).
 */
export class Journaled implements JournaledEvents {
  journal = NO_ROWS;

  get(sequence: number): string | undefined {
    const { journal } = this;
    let low = 0;
    let high = journal.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const row = journal[middle] as MemoryRow;
      if (row.sequence === sequence) return jsonOf(row);
      if (row.sequence < sequence) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }
}

/** The index of the first row of `journal` (in sequence order) whose sequence is greater than `after`. */
export function firstAfter(journal: readonly MemoryRow[], after: number): number {
  let low = 0;
  let high = journal.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((journal[middle] as MemoryRow).sequence <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}
