import { Lexer } from 'marked';
import type { MarkdownRenderer } from './terminal-markdown';

/** Markdown text arriving in pieces, rendered one complete block at a time. */
export interface StreamedMarkdown {
  /** Adds streamed text; returns the rendering of the blocks it completed ('' when none). */
  push(chunk: string): string;
  /** Renders whatever is left (the last block, complete or not) and starts over; '' when nothing is left. */
  flush(): string;
  /** What {@link StreamedMarkdown.flush} would return now, without taking it: the block still arriving. */
  preview(): string;
}

/**
 * Renders streamed Markdown with `render`, block by block: a block (heading, paragraph, whole list, fenced code,
 * table) is rendered once a whole line of the next block has arrived, since until then more text could still extend
 * or change it (a list item, a setext underline, the rest of a code fence). Blocks are separated by one blank line; the
 * output never ends with a newline, so the caller decides how the last line ends.
 */
export function createStreamedMarkdown(render: MarkdownRenderer): StreamedMarkdown {
  let pending = '';
  let started = false;

  function emit(markdown: string): string {
    const rendered = render(markdown);
    if (rendered === '') return '';
    const separator = started ? '\n\n' : '';
    started = true;
    return separator + rendered;
  }

  return {
    push(chunk) {
      pending += chunk.replace(/\r\n?/g, '\n');
      // A block can only end at a line break: lexing on other chunks would find nothing new. Only whole lines are
      // lexed, since a line's start can still change what it is ("2" becomes the list item "2. two").
      if (!/[\r\n]/.test(chunk)) return '';
      const tokens = Lexer.lex(pending.slice(0, pending.lastIndexOf('\n') + 1));
      let last = tokens.length - 1;
      while (last >= 0 && tokens[last]?.type === 'space') last--;
      if (last <= 0) return '';
      const complete = tokens
        .slice(0, last)
        .map((token) => token.raw)
        .join('');
      // The lexer may normalise what it read (tabs, for one): then wait and render it all at the end.
      if (!pending.startsWith(complete)) return '';
      pending = pending.slice(complete.length);
      return emit(complete);
    },
    preview() {
      if (pending.trim() === '') return '';
      const rendered = render(pending);
      return rendered === '' ? '' : (started ? '\n\n' : '') + rendered;
    },
    flush() {
      const rest = pending;
      pending = '';
      const output = rest.trim() === '' ? '' : emit(rest);
      started = false;
      return output;
    },
  };
}
