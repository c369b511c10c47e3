/** Bounds on what a store accepts, so one bad caller cannot fill a disk or a process's memory with one row. */
export interface StoreLimits {
  /** Longest JSON text of one event, in characters (default 8 Mi). */
  maxEventChars: number;
  /** Longest JSON text of one session (its messages and meta), in characters (default 64 Mi). */
  maxSessionChars: number;
}

/** The limits a store uses when `openStore` is given none. */
export const DEFAULT_STORE_LIMITS: StoreLimits = {
  maxEventChars: 8 * 1024 * 1024,
  maxSessionChars: 64 * 1024 * 1024,
};

/** Longest run or session id, in characters. */
export const MAX_ID_CHARS = 256;

/** Largest `sequence` (it must fit a 32-bit signed integer column). */
export const MAX_SEQUENCE = 2 ** 31 - 1;

/** Largest `limit` of `listRuns` / `listSessions`; the default is 50. */
export const MAX_LIST_LIMIT = 1000;
