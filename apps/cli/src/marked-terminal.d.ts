// marked-terminal ships no types, and @types/marked-terminal pins marked < 12: the part the CLI uses, declared here.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  /** Styles one kind of element (ANSI in, ANSI out). */
  type Paint = (text: string) => string;

  /** Options of `markedTerminal` (the ones the CLI sets). */
  export interface TerminalRendererOptions {
    width?: number;
    reflowText?: boolean;
    showSectionPrefix?: boolean;
    emoji?: boolean;
    tab?: number | string;
    code?: Paint;
    blockquote?: Paint;
    html?: Paint;
    heading?: Paint;
    firstHeading?: Paint;
    hr?: Paint;
    listitem?: Paint;
    table?: Paint;
    paragraph?: Paint;
    strong?: Paint;
    em?: Paint;
    codespan?: Paint;
    del?: Paint;
    link?: Paint;
    href?: Paint;
  }

  /** A marked extension that renders Markdown for a terminal. */
  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: object): MarkedExtension;
}
