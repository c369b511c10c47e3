// The console's number and time formats (web/src/format.ts): written without Intl, so they are checked here.
import { describe, expect, it } from 'vitest';
import { formatCount, formatTime, formatTokens } from '../web/src/format';

describe('console formats', () => {
  it('formatCount puts a comma every three digits', () => {
    expect([0, 7, 999, 1000, 12_345, 1_234_567, 1998.7].map(formatCount)).toEqual([
      '0',
      '7',
      '999',
      '1,000',
      '12,345',
      '1,234,567',
      '1,998',
    ]);
    expect(formatTokens({ inputTokens: 49_900, outputTokens: 9_980 })).toBe('59,880');
  });

  it('formatTime writes the local time as YYYY-MM-DD HH:MM:SS, and – for a missing or bad time', () => {
    const local = new Date(2026, 0, 2, 3, 4, 5);
    expect(formatTime(local.toISOString())).toBe('2026-01-02 03:04:05');
    expect(formatTime(new Date(2026, 11, 31, 23, 59, 59).toISOString())).toBe('2026-12-31 23:59:59');
    expect(formatTime(undefined)).toBe('–');
    expect(formatTime('not a time')).toBe('–');
  });
});
