import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_RESULT_LINE_BYTES,
  openResultAppender,
  type ResultLine,
  readDoneIds,
  toResultLine,
} from '../src/batch-output';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-batch-output-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (id: string, status = 'completed'): ResultLine => ({
  id,
  status,
  attempts: 1,
  steps: 1,
  toolCalls: 0,
  usage: { inputTokens: 1, outputTokens: 2 },
  durationMs: 5,
});

describe('results file', () => {
  it('appends one JSON line per result and reads the done ids back (aborted ones are not done)', async () => {
    const path = join(dir, 'out.jsonl');
    const appender = openResultAppender(path);
    appender.append(line('a'));
    appender.append(line('b', 'step_limit'));
    appender.append(line('c', 'aborted'));
    appender.close();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(4);
    expect([...(await readDoneIds(path))]).toEqual(['a', 'b']);
  });

  it('ignores a last line cut by a crash and starts the next result on a new line', async () => {
    const path = join(dir, 'out.jsonl');
    writeFileSync(path, `${JSON.stringify(line('a'))}\n{"id":"b","sta`);
    expect([...(await readDoneIds(path))]).toEqual(['a']);
    const appender = openResultAppender(path);
    appender.append(line('b'));
    appender.close();
    expect([...(await readDoneIds(path))]).toEqual(['a', 'b']);
  });

  it('has no done ids without a file', async () => {
    expect((await readDoneIds(join(dir, 'missing.jsonl'))).size).toBe(0);
  });

  it('reads the results file line by line with a bound: a line over it is not done, the next ones are', async () => {
    const path = join(dir, 'out.jsonl');
    const huge = JSON.stringify({ ...line('huge'), answer: 'x'.repeat(MAX_RESULT_LINE_BYTES) });
    writeFileSync(path, `${JSON.stringify(line('a'))}\n${huge}\n${JSON.stringify(line('b'))}\n`);
    expect([...(await readDoneIds(path))]).toEqual(['a', 'b']);
  }, 60_000);

  it('writes the fields of a batch result', () => {
    expect(
      toResultLine({
        index: 3,
        id: 'x',
        status: 'model_error',
        error: 'boom',
        attempts: 3,
        steps: 0,
        toolCalls: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        durationMs: 12.6,
      }),
    ).toEqual({
      id: 'x',
      status: 'model_error',
      error: 'boom',
      attempts: 3,
      steps: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 13,
    });
  });
});
