import { ConfigError } from '@bridle/protocol';
import { seededRandom } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { boundToolResult, omissionMarker } from '../src/bound-tool-result';

// A lone surrogate is a code point of category Cs under the `u` flag; a whole pair is not.
const hasLoneSurrogate = (text: string) => /\p{Cs}/u.test(text);

describe('boundToolResult', () => {
  it('returns content that fits unchanged', () => {
    expect(boundToolResult('hello', 5)).toBe('hello');
    expect(boundToolResult('', 1)).toBe('');
  });

  it('keeps head and tail around a marker with the exact omitted count, exactly at the limit', () => {
    const content = 'a'.repeat(50) + 'b'.repeat(50);
    const bounded = boundToolResult(content, 60);
    // The marker for 73 omitted characters is 33 long, leaving 27: 14 of head, 13 of tail.
    expect(bounded).toBe(`${'a'.repeat(14)}\n[... 73 characters omitted ...]\n${'b'.repeat(13)}`);
    expect(bounded).toHaveLength(60);
  });

  it('cuts one character over the limit', () => {
    const content = 'x'.repeat(101);
    const bounded = boundToolResult(content, 100);
    expect(bounded).toHaveLength(100);
    // The marker is 31 characters plus the digits: 33 here, leaving 67 = 34 of head + 33 of tail.
    expect(bounded).toBe(`${'x'.repeat(34)}${omissionMarker(34)}${'x'.repeat(33)}`);
  });

  it('grows the marker when the omitted count gains a digit', () => {
    for (const length of [1000, 9999, 10_040, 123_456]) {
      for (const limit of [40, 41, 50, 99, 100, 101, 999]) {
        const bounded = boundToolResult('z'.repeat(length), limit);
        const omitted = Number(/\[\.\.\. (\d+) characters omitted/.exec(bounded)?.[1]);
        expect(bounded.length).toBeLessThanOrEqual(limit);
        expect(bounded.length - omissionMarker(omitted).length + omitted).toBe(length);
      }
    }
  });

  it('gives just the head when the marker leaves no room', () => {
    expect(boundToolResult('abcdefghij'.repeat(10), 1)).toBe('a');
    expect(boundToolResult('abcdefghij'.repeat(10), 12)).toBe('abcdefghijab');
    // 34 = the 33-character marker plus 1: still no room for both a head and a tail.
    expect(boundToolResult('abcdefghij'.repeat(10), 34)).toBe('abcdefghij'.repeat(3).concat('abcd'));
  });

  it('never splits a surrogate pair', () => {
    const emoji = '😀'.repeat(100); // 200 code units
    const bounded = boundToolResult(emoji, 60);
    expect(bounded.length).toBeLessThanOrEqual(60);
    expect(hasLoneSurrogate(bounded)).toBe(false);
    expect(boundToolResult(emoji, 5)).toBe('😀😀');
    expect(boundToolResult(`a${emoji}`, 2)).toBe('a');
  });

  it('holds its invariants for random content and limits (seed 7)', () => {
    const random = seededRandom(7);
    const pieces = ['a', 'é', '😀', '\n', '中'];
    for (let round = 0; round < 2000; round++) {
      let content = '';
      const size = random.int(0, random.bool(0.2) ? 5000 : 200);
      while (content.length < size) content += random.pick(pieces);
      const limit = random.int(1, 300);
      const bounded = boundToolResult(content, limit);
      expect(bounded.length).toBeLessThanOrEqual(limit);
      expect(hasLoneSurrogate(bounded)).toBe(false);
      if (content.length <= limit) expect(bounded).toBe(content);
      else {
        const match = /\n\[\.\.\. (\d+) characters omitted \.\.\.\]\n/.exec(bounded);
        if (match === null) expect(content.startsWith(bounded)).toBe(true);
        else {
          const head = bounded.slice(0, match.index);
          const tail = bounded.slice(match.index + match[0].length);
          expect(content.startsWith(head)).toBe(true);
          expect(content.endsWith(tail)).toBe(true);
          expect(head.length + Number(match[1]) + tail.length).toBe(content.length);
          expect(bounded.length).toBeGreaterThanOrEqual(limit - 2);
        }
      }
    }
  });

  it('rejects a limit that is not a positive integer', () => {
    for (const limit of [0, -1, 1.5, Number.NaN, Infinity, '10', undefined]) {
      expect(() => boundToolResult('x', limit as number)).toThrow(ConfigError);
    }
    expect(() => boundToolResult('x', 0)).toThrow('limit must be a positive integer, got number 0');
    expect(() => boundToolResult(42 as unknown as string, 10)).toThrow('content must be a string, got number 42');
  });
});
