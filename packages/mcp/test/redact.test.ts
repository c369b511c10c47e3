import { describe, expect, it } from 'vitest';
import { redact, secretValues } from '../src/redact';

describe('redact', () => {
  it('replaces every env and header value, and the token of an Authorization header', () => {
    const secrets = secretValues({
      env: { KEY: 'abcd1234', DEBUG: '1' },
      headers: { Authorization: 'Bearer tok-999' },
    });
    expect(redact('key abcd1234, auth Bearer tok-999, token tok-999, debug 1', secrets)).toBe(
      'key [redacted], auth [redacted], token [redacted], debug 1',
    );
  });

  it('replaces the longer secret first when one contains another', () => {
    expect(redact('xx-secret-long', secretValues({ env: { A: 'secret', B: 'xx-secret-long' } }))).toBe('[redacted]');
  });
});
