import { describe, expect, it } from 'vitest';
import { parsePath } from '../src/path-rules';

describe('parsePath', () => {
  it.each([
    ['a/b.txt', ['a', 'b.txt']],
    ['./a//b/', ['a', 'b']],
    ['a/./b', ['a', 'b']],
    ['...', ['...']],
    ['%2e%2e/x', ['%2e%2e', 'x']],
  ])('accepts %j as segments %j', (input, segments) => {
    expect(parsePath(input)).toEqual(segments);
  });

  it.each(['.', '', './', undefined])('treats %j as the root only when allowed', (input) => {
    expect(parsePath(input, { allowRoot: true })).toEqual([]);
    expect(() => parsePath(input)).toThrow(/root|must be a string/);
  });

  it.each([
    ['/etc/passwd', /is absolute/],
    ['~/x', /is absolute/],
    ['C:/Windows', /is absolute/],
    ['..', /contains "\.\."/],
    ['../root2/x', /contains "\.\."/],
    ['a/../../x', /contains "\.\."/],
    ['a/..', /contains "\.\."/],
    ['./../x', /contains "\.\."/],
    ['a//..//..//x', /contains "\.\."/],
    ['..\\x', /backslash/],
    ['a\\b', /backslash/],
    ['a\u0000b', /NUL byte/],
    ['a\nb', /control or invisible/],
    ['.g\u200cit/config', /control or invisible/],
    ['a\u202eb', /control or invisible/],
    ['x'.repeat(5000), /limit is 4096/],
  ])('refuses %j', (input, message) => {
    expect(() => parsePath(input)).toThrow(message);
  });

  it.each([42, null, {}, ['a']])('refuses the non-string %j with a code', (input) => {
    expect(() => parsePath(input)).toThrow(
      expect.objectContaining({ code: 'invalid_path', message: expect.stringMatching(/must be a string/) }),
    );
  });
});
