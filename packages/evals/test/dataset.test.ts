import { Readable } from 'node:stream';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { checkDataset, readDataset } from '../src/index';

const stream = (lines: string[]) => Readable.from([Buffer.from(lines.join('\n'))]);

describe('readDataset', () => {
  it('reads one case a line, gives ids by line number, skips blank and // lines', async () => {
    const cases = await readDataset(
      stream([
        '// arithmetic',
        '{"input": "2 + 2?", "expected": {"answer": "4"}}',
        '',
        '{"id": "tools", "input": [{"role": "user", "content": "look"}], "expected": {"tools": [{"name": "lookup", "arguments": {"key": "a"}}], "toolsOrder": "subset"}, "tags": ["t"], "limits": {"maxSteps": 3}}',
      ]),
    );
    expect(cases).toEqual([
      { id: 'case-2', input: '2 + 2?', expected: { answer: '4' } },
      {
        id: 'tools',
        input: [{ role: 'user', content: 'look' }],
        expected: { tools: [{ name: 'lookup', arguments: { key: 'a' } }], toolsOrder: 'subset' },
        tags: ['t'],
        limits: { maxSteps: 3 },
      },
    ]);
  });

  it('runs nothing when a line is bad: one ConfigError names every bad line and why', async () => {
    const error = await readDataset(
      stream([
        '{"input": "ok"}',
        '{"input": "broken",',
        '{"prompt": "old batch shape"}',
        '{"input": "x", "expected": {"tools": [{"arguments": {}}]}}',
        '{"input": "x", "expected": {"toolsOrder": "sorted"}}',
        '{"input": "x", "expected": {"regex": "("}}',
        '{"input": "x", "limits": {"maxSteps": 0}}',
        '{"id": "a", "input": "x"}',
        '{"id": "a", "input": "y"}',
        '{"input": [{"role": "assistant", "content": "no user first"}]}',
      ]),
      { name: 'evals.jsonl' },
    ).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    const lines = (error as Error).message.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      'evals.jsonl: 8 bad cases; nothing was run (fix them and run again):',
      '  evals.jsonl:2: not valid JSON',
      '  evals.jsonl:3: unknown key "prompt" (known: id, input, expected, tags, limits)',
      '  evals.jsonl:4: "expected.tools[0]" must be an object with a "name" string, got an object',
      '  evals.jsonl:5: "expected.toolsOrder" must be "exact", "any" or "subset", got "sorted"',
      '  evals.jsonl:6: "expected.regex" is not a valid regular expression: Invalid regular expression: /(/: Unterminated group',
      '  evals.jsonl:7: "limits.maxSteps" must be a positive integer, got number 0',
      '  evals.jsonl:9: id "a" is already used on line 8',
    ]);
    expect(lines).toHaveLength(9);
    expect((error as Error).message).toMatch(/\n {2}evals\.jsonl:10: "input" is not a valid transcript: .+$/);
  });

  it('counts a line over the byte limit as a bad line without holding it, and refuses an empty dataset', async () => {
    await expect(
      readDataset(stream(['{"input": "ok"}', `{"input": "${'x'.repeat(5000)}"}`]), {
        maxLineBytes: 1000,
        name: 'big.jsonl',
      }),
    ).rejects.toThrow(
      'big.jsonl: 1 bad case; nothing was run (fix it and run again):\n  big.jsonl:2: the line is 5013 bytes, over the limit',
    );
    await expect(readDataset(stream(['', '// nothing']), { name: 'empty.jsonl' })).rejects.toThrow(
      'empty.jsonl has no cases',
    );
  });

  it('names a missing file', async () => {
    await expect(readDataset('/nonexistent/evals.jsonl')).rejects.toThrow(/ENOENT/);
  });
});

describe('checkDataset', () => {
  it('gives default ids by position and names bad cases by index', () => {
    expect(checkDataset([{ input: 'a' }, { id: 'b', input: 'b' }]).map((entry) => entry.id)).toEqual(['case-1', 'b']);
    expect(() => checkDataset([{ input: 'a' }, { input: 7 } as never, { id: 'case-1', input: 'c' }])).toThrow(
      'runEval: dataset: 2 bad cases; nothing was run (fix them and run again):\n  dataset[1]: "input" must be a prompt string or a non-empty array of messages, got number 7\n  dataset[2]: id "case-1" is used twice',
    );
  });
});
