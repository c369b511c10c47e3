import { describe, expect, it } from 'vitest';
import { createStreamedMarkdown } from '../src/streamed-markdown';
import { createTerminalMarkdown } from '../src/terminal-markdown';

/** Marks each rendered block, so the tests see exactly which blocks were rendered when. */
const bracket = (markdown: string) => `[${markdown.trim()}]`;

const answer = [
  '# Plan',
  '',
  'First **read** the file.',
  '',
  '1. one',
  '',
  '2. two',
  '',
  '```ts',
  'const a = 1;',
  '',
  'const b = 2;',
  '```',
  '',
  'Done.',
].join('\n');

describe('createStreamedMarkdown', () => {
  it('renders a block once a whole line of the next one came, never splitting a list or a code fence', () => {
    const stream = createStreamedMarkdown(bracket);
    const outputs: string[] = [];
    for (const char of answer) {
      const output = stream.push(char);
      if (output !== '') outputs.push(output);
    }
    outputs.push(stream.flush());
    expect(outputs).toEqual([
      '[# Plan]',
      '\n\n[First **read** the file.]',
      '\n\n[1. one\n\n2. two]',
      // "Done." never got its line break: the fence is not known to be followed by a whole line until the end.
      '\n\n[```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nDone.]',
    ]);
  });

  it('streamed in any pieces, renders like the whole text at once (seed 7)', () => {
    const render = createTerminalMarkdown({ width: 60 });
    const whole = render(answer);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 20; round++) {
      const stream = createStreamedMarkdown(render);
      let output = '';
      for (let at = 0; at < answer.length; ) {
        const size = 1 + Math.floor(random() * 12);
        output += stream.push(answer.slice(at, at + size));
        at += size;
      }
      output += stream.flush();
      expect(output).toBe(whole);
    }
  });

  it('normalises CRLF, renders nothing for blank text and starts over after flush', () => {
    const stream = createStreamedMarkdown(bracket);
    expect(stream.push('a\r\n\r\nb\r\n')).toBe('[a]');
    expect(stream.flush()).toBe('\n\n[b]');
    expect(stream.push('\n\n')).toBe('');
    expect(stream.flush()).toBe('');
    expect(stream.push('# Again\nnext')).toBe('');
    expect(stream.push(' line\n')).toBe('[# Again]');
    expect(stream.flush()).toBe('\n\n[next line]');
  });
});
