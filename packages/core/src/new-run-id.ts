import { v7 } from 'uuid';

/**
 * A new run id: a UUID version 7 (RFC 9562), whose first 48 bits are the creation time in ms since the
 * epoch, so ids of runs created in different milliseconds sort (as text, and as bytes) by creation time.
 * The other 73 bits that are not version and variant are random on every call (`msecs` is passed, so uuid's
 * per-process sequence, which would make the next id from one process predictable, is not used), so two ids
 * of one millisecond are in no particular order.
 * Why time-ordered: stores index runs (and their events) by run id; a new id lands at the end of those
 * indexes instead of on a random page of them, so journaling a run writes fewer pages.
 * Run ids given by callers may be any id the store accepts (older runs have random v4 ids): never parse one.
 */
export function newRunId(): string {
  return v7({ msecs: Date.now() });
}
