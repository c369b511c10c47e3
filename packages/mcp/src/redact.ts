/** What replaces a secret in any text Bridle shows. */
export const REDACTED = '[redacted]';

/** Values shorter than this are not treated as secrets (redacting "1" or "on" would garble every message). */
const MIN_SECRET_LENGTH = 4;

/**
 * The secret values of a server config: every `env` and `headers` value long enough to matter, longest
 * first (so a secret that contains another is replaced whole).
 */
export function secretValues(server: { env?: Record<string, string>; headers?: Record<string, string> }): string[] {
  const values = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  const secrets = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') continue;
    if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
    // `Authorization: Bearer <token>`: the token alone may be echoed too.
    const token = /^\s*\S+\s+(\S{4,})\s*$/.exec(value)?.[1];
    if (token !== undefined) secrets.add(token);
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each secret in `text` with {@link REDACTED}. Never throws. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}
