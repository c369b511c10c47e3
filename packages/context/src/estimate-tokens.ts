/** Counts the tokens of a text. Must return a finite number >= 0; should be deterministic. */
export type TokenCounter = (text: string) => number;

/**
 * The default token estimate: about 4 characters per token for ASCII text, 1 token per character beyond
 * ASCII (CJK, emoji halves, accented letters), so it errs high for non-English text rather than overflow a
 * model's context. `ceil`, so never 0 for a non-empty text; 0 for `''`. Linear in the text length.
 * Plug in a real tokenizer (e.g. `js-tiktoken`) as a {@link TokenCounter} when you need exact counts.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) < 0x80) ascii++;
  return Math.ceil(ascii / 4 + (text.length - ascii));
}
