import { randomBytes } from 'node:crypto';
import { ConfigError } from '@bridle/protocol';

/** The fewest bytes a decision key may have (the HMAC-SHA-256 key length). */
export const MIN_DECISION_KEY_BYTES = 32;

let processKey: Uint8Array | undefined;

/**
 * The key decisions are signed with when the caller gives none: made once per process, never stored.
 * Decisions a paused run kept are then verifiable only in the process that made them; a state or journal
 * from anywhere else has its decisions asked again.
 */
function defaultKey(): Uint8Array {
  processKey ??= randomBytes(MIN_DECISION_KEY_BYTES);
  return processKey;
}

/**
 * Checks the `decisionKey` option: a `Uint8Array` or a string (its UTF-8 bytes) of at least 32 bytes, or
 * undefined for the process's own key. Throws `ConfigError`; the message never repeats the secret.
 */
export function resolveDecisionKey(value: unknown): Uint8Array {
  if (value === undefined) return defaultKey();
  const bytes =
    typeof value === 'string' ? Buffer.from(value, 'utf8') : value instanceof Uint8Array ? value : undefined;
  if (bytes === undefined || bytes.byteLength < MIN_DECISION_KEY_BYTES)
    throw new ConfigError(
      `Invalid option decisionKey: expected a secret of at least ${MIN_DECISION_KEY_BYTES} bytes (a Uint8Array or a string), got ${bytes === undefined ? (value === null ? 'null' : typeof value) : `${bytes.byteLength} bytes`}. Make one with crypto.randomBytes(32) and keep it where only the user can read it.`,
    );
  // A private copy: a caller that reuses its buffer cannot change the key under a running run.
  return Uint8Array.from(bytes);
}
