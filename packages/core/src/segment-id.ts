import { randomUUID } from 'node:crypto';

let processPart: string | undefined;
let segments = 0;

/**
 * A new id for a journaled segment's `run_start`: this process's random UUID and a count of the segments it
 * opened, so no two segments anywhere share one. A random UUID per segment would be as unique, and cost more
 * than the rest of the id's work in a one-step run (a draw from the random pool, formatting).
 */
export function newSegmentId(): string {
  processPart ??= randomUUID();
  segments++;
  return `${processPart}.${segments}`;
}
