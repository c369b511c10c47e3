import { describe, expect, it } from 'vitest';
import { markdownFor } from '../src/markdown-for';
import { createStyle } from '../src/style';
import { createTerminalMarkdown } from '../src/terminal-markdown';

const ESC = '\u001b';
const strip = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');

describe('createTerminalMarkdown', () => {
  const render = createTerminalMarkdown({ width: 60 });

  it('renders headings, emphasis, lists, code, links and tables for a terminal', () => {
    const output = render(
      [
        '# Title',
        '',
        '## Steps',
        '',
        'Some **bold**, *italic* and `code`, see [the docs](https://example.com/docs).',
        '',
        '- first',
        '- second with **bold** and `code`',
        '',
        '```js',
        'const x = 1;',
        '```',
        '',
        '| a | b |',
        '|---|---|',
        '| 1 | 2 |',
      ].join('\n'),
    );
    expect(output).toContain(`${ESC}[1m${ESC}[4m${ESC}[35mTitle${ESC}[39m${ESC}[24m${ESC}[22m`);
    expect(output).toContain(`${ESC}[1m${ESC}[32mSteps${ESC}[39m${ESC}[22m`);
    expect(output).toContain(`${ESC}[1mbold${ESC}[22m`);
    expect(output).toContain(`${ESC}[3mitalic${ESC}[23m`);
    expect(output).toContain(`${ESC}[33mcode${ESC}[39m`);
    const text = strip(output);
    expect(text).not.toMatch(/#|\*\*|\*italic|`/);
    expect(text).toContain('the docs (\nhttps://example.com/docs)');
    expect(text).toContain('  * first\n  * second with bold and code');
    expect(output).toContain(`second with ${ESC}[1mbold${ESC}[22m and ${ESC}[33mcode${ESC}[39m`);
    expect(text).toContain('  const x = 1;');
    expect(text).toContain('│ a │ b │');
    expect(output.endsWith('\n')).toBe(false);
  });

  it('wraps paragraphs at the width and drops control characters from the model', () => {
    const long = 'word '.repeat(30).trim();
    expect(
      strip(createTerminalMarkdown({ width: 40 })(long))
        .split('\n')
        .every((line) => line.length <= 40),
    ).toBe(true);
    expect(render(`a${ESC}]0;pwned\u0007b\rc`)).toBe('a]0;pwnedbc');
  });
});

describe('markdownFor', () => {
  it('renders only on a TTY with colour on', async () => {
    const on = createStyle(true);
    const stream = (await markdownFor({ write: () => true, isTTY: true, columns: 50 }, on))?.();
    expect(stream?.push('**a**\n\nb\n')).toBe(`${ESC}[1ma${ESC}[22m`);
    expect(await markdownFor({ write: () => true }, on)).toBeUndefined();
    expect(await markdownFor({ write: () => true, isTTY: true }, createStyle(false))).toBeUndefined();
  });
});
