import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type EvalResult, readEvalResult } from '@bridle/evals';
import { ConfigError } from '@bridle/protocol';

/**
 * The eval id an `--out` file asks to resume: the id of an unfinished result of the same dataset there, else
 * undefined (no file, or a finished eval: a new one starts and replaces it). A file that is not an eval
 * result is a `ConfigError`: it is never overwritten.
 */
export function unfinishedEvalId(path: string, dataset: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read --out ${path}: ${(error as Error).message}.`, { cause: error });
  }
  const result = readEvalResult(text, `--out ${path}`);
  return !result.complete && result.dataset === dataset ? result.evalId : undefined;
}

/** Writes the result as JSON (to a temporary file renamed over `path`, so a crash never leaves half a file). */
export function writeEvalResult(path: string, result: EvalResult): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(result, null, 2)}\n`);
  renameSync(temporary, path);
}
