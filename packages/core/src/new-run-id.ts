import { randomFillSync } from 'node:crypto';

/** Random bytes for 256 ids, filled at once (as node's `randomUUID` keeps a pool): ~0.3 µs an id, not ~4.5. */
const POOL_BYTES = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let taken = POOL_BYTES;

/** The two hex digits of each byte. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

// Ids of one millisecond share their time part: `tttttttt-tttt-`, written once per millisecond.
let timeMs = Number.NaN;
let timePart = '';

/** `tttttttt-tttt-`: the 48 bits of `msecs`, as RFC 9562 lays them out (and as uuid's `v7` writes them). */
function timeHex(msecs: number): string {
  const byte = (at: number) => HEX[(msecs / 2 ** (8 * at)) & 0xff] as string;
  return `${byte(5)}${byte(4)}${byte(3)}${byte(2)}-${byte(1)}${byte(0)}-`;
}

/**
 * The UUID version 7 that uuid's `v7({ msecs, random })` makes of these 16 random bytes (`random[offset..]`),
 * written straight to text (uuid makes a byte array, then its text, then lowercases it: twice the work). As
 * there, bytes 6 to 9 make a 31-bit number (`seq`) laid out over the 42 bits after the version, with the low
 * bits of byte 10; bytes 11 to 15 are the last five. Exported for the test that compares the two.
 */
export function runIdOf(msecs: number, random: Uint8Array, offset: number): string {
  if (msecs !== timeMs) {
    timeMs = msecs;
    timePart = timeHex(msecs);
  }
  const seq =
    (((random[offset + 6] as number) & 0x7f) << 24) |
    ((random[offset + 7] as number) << 16) |
    ((random[offset + 8] as number) << 8) |
    (random[offset + 9] as number);
  return (
    timePart +
    HEX[0x70 | ((seq >>> 28) & 0x0f)] +
    HEX[(seq >>> 20) & 0xff] +
    '-' +
    HEX[0x80 | ((seq >>> 14) & 0x3f)] +
    HEX[(seq >>> 6) & 0xff] +
    '-' +
    HEX[((seq << 2) & 0xff) | ((random[offset + 10] as number) & 0x03)] +
    HEX[random[offset + 11] as number] +
    HEX[random[offset + 12] as number] +
    HEX[random[offset + 13] as number] +
    HEX[random[offset + 14] as number] +
    HEX[random[offset + 15] as number]
  );
}

/**
 * A new run id: a UUID version 7 (RFC 9562), whose first 48 bits are the creation time in ms since the
 * epoch, so ids of runs created in different milliseconds sort (as text, and as bytes) by creation time.
 * The other 73 bits that are not version and variant are random on every call (no per-process sequence,
 * which would make the next id from one process predictable), so two ids of one millisecond are in no
 * particular order. The random bytes come from a pool filled by `crypto.randomFillSync`, 16 never handed out
 * before per id. Why time-ordered: stores index runs (and their events) by run id; a new id lands at the end
 * of those indexes instead of on a random page of them, so journaling a run writes fewer pages.
 * Run ids given by callers may be any id the store accepts (older runs have random v4 ids): never parse one.
 */
export function newRunId(): string {
  if (taken === POOL_BYTES) {
    randomFillSync(pool);
    taken = 0;
  }
  const offset = taken;
  taken += 16;
  return runIdOf(Date.now(), pool, offset);
}
