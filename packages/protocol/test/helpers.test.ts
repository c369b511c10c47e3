import { describe, expect, it } from 'vitest';
import { ConfigError, ProviderError } from '../src/errors';
import { errorMessage } from '../src/internal/error-message';
import { integerOption } from '../src/internal/integer-option';
import { isThenable } from '../src/internal/is-thenable';
import { parseToolArguments } from '../src/internal/parse-tool-arguments';
import { codeForStatus, providerError } from '../src/internal/provider-error';
import { wireSchema } from '../src/internal/wire-schema';

describe('errorMessage', () => {
  it('reads an Error, a string, or describes the value', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage({ message: 'shaped' })).toBe('shaped');
    expect(errorMessage(42, 'The tool failed')).toBe('The tool failed (threw number 42)');
    expect(errorMessage(new TypeError(''), 'The tool failed')).toBe(
      'The tool failed (threw TypeError with no message)',
    );
    expect(errorMessage(undefined)).toBe('Unknown error (threw undefined)');
  });

  it('never throws, even for a hostile value', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(errorMessage(hostile, 'Failed')).toBe('Failed (threw a value that cannot be described)');
  });
});

describe('integerOption', () => {
  it('returns the fallback for undefined and the value when in range', () => {
    expect(integerOption('n', undefined, 7, { min: 1 })).toBe(7);
    expect(integerOption('n', undefined, undefined, { min: 1 })).toBeUndefined();
    expect(integerOption('n', 3, 7, { min: 1, max: 3 })).toBe(3);
    expect(integerOption('n', 0, 7, { min: 0 })).toBe(0);
  });

  it('names the option, the range, where it belongs and the value', () => {
    const cases: [unknown, { min: number; max?: number; where?: string }, string][] = [
      [0, { min: 1 }, 'Invalid option n: expected an integer >= 1 (a safe integer), got number 0.'],
      [1.5, { min: 1 }, 'Invalid option n: expected an integer >= 1 (a safe integer), got number 1.5.'],
      ['3', { min: 0, max: 5 }, 'Invalid option n: expected an integer from 0 to 5, got "3".'],
      [
        6,
        { min: 0, max: 5, where: 'runBatch' },
        'Invalid runBatch option n: expected an integer from 0 to 5, got number 6.',
      ],
      [Number.NaN, { min: 1 }, 'Invalid option n: expected an integer >= 1 (a safe integer), got number NaN.'],
      [
        2 ** 53,
        { min: 1 },
        'Invalid option n: expected an integer >= 1 (a safe integer), got number 9007199254740992.',
      ],
    ];
    for (const [value, range, message] of cases) {
      expect(() => integerOption('n', value, 1, range)).toThrow(ConfigError);
      expect(() => integerOption('n', value, 1, range)).toThrow(message);
    }
  });
});

describe('isThenable', () => {
  it('is true for promises and objects with a callable then', () => {
    expect(isThenable(Promise.resolve(1))).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a hand-made thenable is the case under test
    expect(isThenable({ then: () => {} })).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a non-callable then is the case under test
    expect(isThenable({ then: 1 })).toBe(false);
    expect(isThenable(null)).toBe(false);
    expect(isThenable(undefined)).toBe(false);
    expect(isThenable(5)).toBe(false);
  });
});

describe('parseToolArguments', () => {
  it('parses JSON text, keeps parsed values and raw unparseable text, reads nothing as {}', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseToolArguments({ a: 1 })).toEqual({ a: 1 });
    expect(parseToolArguments('{"a":')).toBe('{"a":');
    expect(parseToolArguments('  ')).toEqual({});
    expect(parseToolArguments(undefined)).toEqual({});
    expect(parseToolArguments(null)).toEqual({});
  });

  it("wireSchema drops zod 4's hidden ~standard key and nothing else", () => {
    const plain = { type: 'object' };
    expect(wireSchema(plain)).toBe(plain);
    expect(wireSchema({ type: 'object', '~standard': {} })).toEqual({ type: 'object' });
  });
});

describe('providerError', () => {
  it("builds the standard message with the provider's advice and keeps the fields", () => {
    const cause = new Error('x');
    const error = providerError('anthropic', 'server', 'overloaded_error: Overloaded.', {
      status: 529,
      retryAfterMs: 1000,
      cause,
    });
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'anthropic request failed (HTTP 529): overloaded_error: Overloaded. Anthropic failed or is overloaded; retry later.',
    );
    expect([error.code, error.provider, error.status, error.retryAfterMs, error.retryable]).toEqual([
      'server',
      'anthropic',
      529,
      1000,
      true,
    ]);
    expect(error.cause).toBe(cause);
  });

  it('falls back to the shared advice and takes an override', () => {
    expect(providerError('openai', 'auth', 'Incorrect API key').message).toBe(
      'openai request failed: Incorrect API key. Check OPENAI_API_KEY (or the apiKey option) and that the key may use this model.',
    );
    expect(providerError('my-proxy', 'network', 'Connection error.').message).toBe(
      'my-proxy request failed: Connection error. Check the network and the base URL.',
    );
    expect(providerError('openai', 'bad_request', 'nope', { advice: 'Do this.' }).message).toBe(
      'openai request failed: nope. Do this.',
    );
    expect(providerError('toString', 'server', 'x').message).toBe(
      'toString request failed: x. The provider failed; retry later.',
    );
  });

  it('maps HTTP statuses to codes', () => {
    expect([429, 401, 402, 403, 408, 409, 500, 503, 400, 404, 413].map(codeForStatus)).toEqual([
      'rate_limited',
      'auth',
      'auth',
      'auth',
      'timeout',
      'server',
      'server',
      'server',
      'bad_request',
      'bad_request',
      'bad_request',
    ]);
  });
});
