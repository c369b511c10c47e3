import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseInputLine, readBatchInput } from '../src/batch-input';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-batch-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('parseInputLine', () => {
  it('reads id, prompt and per-item overrides', () => {
    expect(parseInputLine('{"id":"a","prompt":"hi","system":"s","maxSteps":3,"extra":1}', 1)).toEqual({
      id: 'a',
      line: 1,
      prompt: 'hi',
      system: 's',
      maxSteps: 3,
    });
    expect(parseInputLine('{"id":7,"prompt":"hi"}', 2)).toEqual({ id: '7', line: 2, prompt: 'hi' });
    expect(parseInputLine('{"prompt":"hi"}', 9)).toEqual({ id: 'line-9', line: 9, prompt: 'hi' });
    expect(parseInputLine('{"messages":[{"role":"user","content":"x"}]}', 1)).toEqual({
      id: 'line-1',
      line: 1,
      messages: [{ role: 'user', content: 'x' }],
    });
  });

  it('skips blank lines', () => {
    expect(parseInputLine('   ', 3)).toBeUndefined();
  });

  it('says what is wrong with a bad line', () => {
    expect(parseInputLine('{"id":"a",', 4)).toMatchObject({
      line: 4,
      error: expect.stringMatching(/^not valid JSON \(/),
    });
    expect(parseInputLine('[1]', 1)).toEqual({
      line: 1,
      error: 'expected an object like {"id": "a", "prompt": "..."}, got an array',
    });
    expect(parseInputLine('{"id":true,"prompt":"x"}', 1)).toEqual({
      line: 1,
      error: '"id" must be a non-empty string or a number, got boolean true',
    });
    expect(parseInputLine('{"id":"a"}', 1)).toEqual({
      line: 1,
      error: 'needs exactly one of "prompt" (a string) or "messages" (an array)',
    });
    expect(parseInputLine('{"id":"a","prompt":" "}', 1)).toEqual({
      line: 1,
      error: '"prompt" must be a non-empty string, got " "',
    });
    expect(parseInputLine('{"id":"a","prompt":"x","maxSteps":"3"}', 1)).toEqual({
      line: 1,
      error: '"maxSteps" must be a number, got "3"',
    });
    expect(parseInputLine('{"id":"a","prompt":"x","system":1}', 1)).toEqual({
      line: 1,
      error: '"system" must be a string, got number 1',
    });
  });
});

describe('readBatchInput', () => {
  it('returns the items and the bad lines with their numbers, duplicates included', async () => {
    const path = join(dir, 'in.jsonl');
    writeFileSync(
      path,
      '\uFEFF{"id":"a","prompt":"one"}\r\n\nnot json\n{"id":"a","prompt":"again"}\n{"id":"b","prompt":"two"}',
    );
    const { items, bad } = await readBatchInput(path);
    expect(items).toEqual([
      { id: 'a', line: 1, prompt: 'one' },
      { id: 'b', line: 5, prompt: 'two' },
    ]);
    expect(bad.map((entry) => entry.line)).toEqual([3, 4]);
    expect(bad[1]?.error).toBe('duplicate id "a" (first on line 1)');
  });

  it('a 1.2 GB line (through a pipe, never on disk) is a bad line and the lines after it are read', async () => {
    const path = join(dir, 'in.fifo');
    execFileSync('mkfifo', [path]);
    const writer = (async () => {
      const stream = createWriteStream(path);
      const chunk = Buffer.alloc(1024 * 1024, 0x78);
      stream.write('{"id":"a","prompt":"one"}\n{"id":"huge","prompt":"');
      for (let index = 0; index < 1200; index++) if (!stream.write(chunk)) await once(stream, 'drain');
      stream.end('"}\n{"id":"b","prompt":"two"}\n');
      await once(stream, 'close');
    })();
    const { items, bad } = await readBatchInput(path);
    await writer;
    expect(items).toEqual([
      { id: 'a', line: 1, prompt: 'one' },
      { id: 'b', line: 3, prompt: 'two' },
    ]);
    expect(bad).toEqual([
      {
        line: 2,
        error: 'the line is 1200.0 MiB long, more than the 8 MiB limit per item: shorten the prompt or split it',
      },
    ]);
  }, 300_000);
});
