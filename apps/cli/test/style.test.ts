import { describe, expect, it } from 'vitest';
import { colorEnabled, createStyle } from '../src/style';

describe('colorEnabled', () => {
  const tty = { write: () => true, isTTY: true };
  const pipe = { write: () => true };
  it('follows NO_COLOR, FORCE_COLOR, TERM=dumb and the TTY', () => {
    expect(colorEnabled(tty, {})).toBe(true);
    expect(colorEnabled(pipe, {})).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: '' })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(pipe, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled(tty, { NO_COLOR: 'x', FORCE_COLOR: '1' })).toBe(false);
    expect(colorEnabled(tty, { TERM: 'dumb' })).toBe(false);
  });
  it('styles to plain text when disabled', () => {
    expect(createStyle(false).red('x')).toBe('x');
    expect(createStyle(true).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});
