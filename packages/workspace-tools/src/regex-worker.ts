import { Worker } from 'node:worker_threads';
import { WorkspaceError } from './workspace-error';

/** One matching line. `line` is 1-based; `text` is cut to the line limit. */
export interface LineMatch {
  path: string;
  line: number;
  text: string;
}

/** Input and bounds of one regex run. */
export interface RegexJob {
  pattern: string;
  files: { path: string; text: string }[];
  maxMatches: number;
  maxLineLength: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

// The worker's program is this fixed constant, never built from input: the model's pattern
// travels as data (workerData) and is only ever compiled with `new RegExp`.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pattern, files, maxMatches, maxLineLength } = workerData;
const regex = new RegExp(pattern);
const matches = [];
let truncated = false;
outer: for (const file of files) {
  const lines = file.text.split('\\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (!regex.test(line)) continue;
    if (matches.length >= maxMatches) { truncated = true; break outer; }
    matches.push({ path: file.path, line: index + 1, text: line.length > maxLineLength ? line.slice(0, maxLineLength) + ' [...]' : line });
  }
}
parentPort.postMessage({ matches, truncated });
`;

/**
 * Runs a regex over text lines in a worker thread with a hard deadline. A regex that backtracks
 * catastrophically cannot be interrupted on the main thread; the worker is terminated instead,
 * which stops the regex mid-match. Rejects with `search_timeout` or `aborted`.
 */
export function runRegexJob(job: RegexJob): Promise<{ matches: LineMatch[]; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    if (job.signal?.aborted) {
      reject(new WorkspaceError('aborted', 'search_text was aborted before it started.'));
      return;
    }
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        pattern: job.pattern,
        files: job.files,
        maxMatches: job.maxMatches,
        maxLineLength: job.maxLineLength,
      },
      resourceLimits: { maxOldGenerationSizeMb: 256 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (error: Error | undefined, value?: { matches: LineMatch[]; truncated: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      job.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(() => {
      finish(
        new WorkspaceError(
          'search_timeout',
          `Refused: the search took longer than ${job.timeoutMs} ms and was stopped. The pattern may backtrack catastrophically (nested quantifiers like (a+)+); simplify it or narrow path/glob.`,
        ),
      );
    }, job.timeoutMs);
    const onAbort = () => finish(new WorkspaceError('aborted', 'search_text was aborted.'));
    job.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (value: { matches: LineMatch[]; truncated: boolean }) => finish(undefined, value));
    worker.once('error', (error) =>
      finish(new WorkspaceError('io_error', `search_text failed: ${error.message}`, { cause: error })),
    );
    worker.once('exit', (code) =>
      finish(new WorkspaceError('io_error', `search_text worker exited early (code ${code}).`)),
    );
  });
}
