import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** Options of {@link createTerminalMarkdown}. */
export interface TerminalMarkdownOptions {
  /** Columns to wrap paragraphs and rules at (the terminal's width); default 80. */
  width?: number;
}

/** Renders a piece of Markdown for a terminal; the result has no trailing newline. */
export type MarkdownRenderer = (markdown: string) => string;

const ansi =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;
const bold = ansi(1, 22);
const italic = ansi(3, 23);
const underline = ansi(4, 24);
const dim = ansi(2, 22);
const plain = (text: string): string => text;

// Escape sequences, carriage returns and other control characters in the model's text (never newline or tab):
// on a terminal they could retitle the window, move the cursor or hide lines, so they are dropped before rendering.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A Markdown renderer for a colour terminal (marked with marked-terminal): headings in bold colour without their
 * `#`, emphasis as bold / italic, lists with bullets, code blocks indented and highlighted, links with their URL,
 * tables drawn with box characters. Used only when stdout is a TTY with colour on (`markdownFor`); piped output is
 * never rendered.
 */
export function createTerminalMarkdown(options: TerminalMarkdownOptions = {}): MarkdownRenderer {
  const width = options.width !== undefined && options.width >= 20 ? options.width : 80;
  const marked = new Marked();
  marked.use(
    markedTerminal({
      width,
      reflowText: true,
      showSectionPrefix: false,
      // `:name:` stays as written: times like 10:30:45 and words between colons are not emoji.
      emoji: false,
      tab: 2,
      firstHeading: (text: string) => bold(underline(ansi(35, 39)(text))),
      heading: (text: string) => bold(ansi(32, 39)(text)),
      strong: bold,
      em: italic,
      codespan: ansi(33, 39),
      blockquote: (text: string) => dim(italic(text)),
      del: (text: string) => dim(ansi(9, 29)(text)),
      link: ansi(34, 39),
      href: (text: string) => underline(ansi(34, 39)(text)),
      html: dim,
      hr: plain,
      listitem: plain,
      paragraph: plain,
      table: plain,
    }),
  );
  marked.use({
    renderer: {
      // marked-terminal prints the text of a tight list item raw, `**` and backticks included (its open issues
      // #304 and #371, since marked 13): render that text's inline tokens. `false` keeps marked-terminal's own.
      text(token) {
        return 'tokens' in token && token.tokens !== undefined ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
  return (markdown) => {
    const rendered = marked.parse(markdown.replace(CONTROL, ''), { async: false });
    return rendered.replace(/\s+$/, '');
  };
}
