import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { collect, duration, nonNegativeInteger, positiveInteger } from '../src/parse-options';

describe('option parsers', () => {
  it('parses positive and non-negative integers', () => {
    expect(positiveInteger('5')).toBe(5);
    expect(nonNegativeInteger('0')).toBe(0);
    for (const bad of ['0', '-1', '1.5', 'x', '', '1e3', '99999999999999999999']) {
      expect(() => positiveInteger(bad)).toThrow(InvalidArgumentError);
    }
    expect(() => nonNegativeInteger('-1')).toThrow('expected a non-negative integer, got "-1".');
  });

  it('parses durations with units, plain numbers as seconds', () => {
    expect(duration('30')).toBe(30_000);
    expect(duration('1.5s')).toBe(1500);
    expect(duration('250ms')).toBe(250);
    expect(duration('2m')).toBe(120_000);
    expect(duration('1h')).toBe(3_600_000);
    for (const bad of ['0', '0ms', '-1s', '10d', 'soon', '']) expect(() => duration(bad)).toThrow(InvalidArgumentError);
    expect(() => duration('999h')).toThrow('expected a duration such as 30s, 500ms, 2m or 90 (seconds), got "999h".');
  });

  it('collects repeated values in order', () => {
    expect(collect('b', collect('a', undefined))).toEqual(['a', 'b']);
  });
});
