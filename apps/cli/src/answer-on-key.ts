import type { Interface } from 'node:readline';

/**
 * While `lines` (a terminal readline interface on `input`) asks a question, answers it as soon as what was typed is
 * one of `keys` (compared lower-case), as if Enter had been pressed: the key stays on screen beside the question.
 * Returns a function that stops listening. Readline handles the key first (its listener was added before this one),
 * so `lines.line` already holds it.
 */
export function answerOnKey(lines: Interface, input: NodeJS.ReadableStream, keys: readonly string[]): () => void {
  const onKey = () => {
    if (keys.includes(lines.line.trim().toLowerCase())) lines.write('\n');
  };
  input.on('keypress', onKey);
  return () => {
    input.off('keypress', onKey);
  };
}
