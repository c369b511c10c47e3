import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { readLines } from '@bridle/batch';
import { ConfigError } from '@bridle/protocol';
import { caseProblem, withId } from './check-case';
import type { EvalCase, EvalCaseInput } from './types';

/** Bad lines named in one error; the rest are counted. */
const SHOWN_PROBLEMS = 10;

/** Options of {@link readDataset}. */
export interface ReadDatasetOptions {
  /** Longest line in bytes; default 8 MiB (a longer one is a bad line, never held in memory). */
  maxLineBytes?: number;
  /** The name used in error messages; default the path (or `dataset`). */
  name?: string;
}

/**
 * Reads a JSONL dataset (one case a line; blank lines and lines starting with `//` are skipped) from a
 * path or a stream. A bad line stops the whole eval before anything runs: it throws one `ConfigError`
 * naming every bad line (`evals.jsonl:3: "expected.tools[0]" must be ...`, the first ten), so a pass rate
 * is never computed over part of a dataset without anyone noticing. Duplicate ids are bad lines too.
 */
export async function readDataset(source: string | Readable, options: ReadDatasetOptions = {}): Promise<EvalCase[]> {
  const name = options.name ?? (typeof source === 'string' ? source : 'dataset');
  const stream = typeof source === 'string' ? createReadStream(source) : source;
  const cases: EvalCase[] = [];
  const problems: string[] = [];
  const seen = new Map<string, number>();
  const lines = readLines(stream, options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
  for await (const entry of lines) {
    if (!('text' in entry)) {
      problems.push(`${name}:${entry.line}: the line is ${entry.tooLongBytes} bytes, over the limit`);
      continue;
    }
    const text = entry.text.trim();
    if (text === '' || text.startsWith('//')) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      problems.push(`${name}:${entry.line}: not valid JSON`);
      continue;
    }
    const problem = caseProblem(value);
    if (problem !== undefined) {
      problems.push(`${name}:${entry.line}: ${problem}`);
      continue;
    }
    const testCase = withId(value as EvalCaseInput, entry.line);
    const earlier = seen.get(testCase.id);
    if (earlier !== undefined) {
      problems.push(`${name}:${entry.line}: id ${JSON.stringify(testCase.id)} is already used on line ${earlier}`);
      continue;
    }
    seen.set(testCase.id, entry.line);
    cases.push(testCase);
  }
  if (problems.length > 0) throw datasetError(name, problems);
  if (cases.length === 0)
    throw new ConfigError(
      `${name} has no cases: add one JSON object a line, like {"input": "What is 2 + 2?", "expected": {"answer": "4"}}.`,
    );
  return cases;
}

/** Checks cases given in code; throws one `ConfigError` naming every bad one by index. */
export function checkDataset(dataset: readonly EvalCaseInput[]): EvalCase[] {
  if (!Array.isArray(dataset) || dataset.length === 0)
    throw new ConfigError(
      'runEval: dataset must be a non-empty array of cases like {"input": "...", "expected": {...}}.',
    );
  const problems: string[] = [];
  const seen = new Set<string>();
  const cases = dataset.map((value, index) => {
    const problem = caseProblem(value);
    if (problem !== undefined) problems.push(`dataset[${index}]: ${problem}`);
    const testCase = withId(value, index + 1);
    if (problem === undefined && seen.has(testCase.id))
      problems.push(`dataset[${index}]: id ${JSON.stringify(testCase.id)} is used twice`);
    seen.add(testCase.id);
    return testCase;
  });
  if (problems.length > 0) throw datasetError('runEval: dataset', problems);
  return cases;
}

function datasetError(name: string, problems: string[]): ConfigError {
  const shown = problems.slice(0, SHOWN_PROBLEMS).join('\n  ');
  const more = problems.length > SHOWN_PROBLEMS ? `\n  ... and ${problems.length - SHOWN_PROBLEMS} more` : '';
  return new ConfigError(
    `${name}: ${problems.length} bad ${problems.length === 1 ? 'case' : 'cases'}; nothing was run (fix ${problems.length === 1 ? 'it' : 'them'} and run again):\n  ${shown}${more}`,
  );
}
