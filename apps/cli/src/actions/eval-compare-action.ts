import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compareEvals, formatComparison, readEvalResult } from '@bridle/evals';
import { ConfigError } from '@bridle/protocol';
import type { CommandContext } from '../command-context';
import { ExitCode } from '../exit-code';

function load(context: CommandContext, file: string) {
  let text: string;
  try {
    text = readFileSync(resolve(context.io.cwd, file), 'utf8');
  } catch (error) {
    throw new ConfigError(
      `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}. Give the files bridle eval --out wrote.`,
    );
  }
  return readEvalResult(text, file);
}

/** `bridle eval compare <a> <b>`: exit 1 when a case got worse. */
export async function evalCompareAction(
  context: CommandContext,
  a: string,
  b: string,
  flags: { json?: boolean },
): Promise<number> {
  const comparison = compareEvals(load(context, a), load(context, b));
  context.io.stdout.write(flags.json ? `${JSON.stringify(comparison)}\n` : formatComparison(comparison));
  return comparison.worse > 0 ? ExitCode.failed : ExitCode.completed;
}
