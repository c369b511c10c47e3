import { MAX_TITLE_CHARS } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { openStore, promptTitle } from '../src/index';

describe('promptTitle', () => {
  it("is the prompt's first line after blank lines, trailing blanks cut, at most MAX_TITLE_CHARS", () => {
    expect(promptTitle('\n\n  Fix the login bug  \t\nDetails follow')).toBe('Fix the login bug');
    expect(promptTitle('x'.repeat(500))).toBe('x'.repeat(MAX_TITLE_CHARS));
    expect(promptTitle(' \n\t\n')).toBeUndefined();
  });

  it('gives the title listRuns shows for the same prompt', async () => {
    const store = await openStore('memory:');
    const prompt = '\n  Summarize the notes   \nand more';
    await store.appendEvents('r1', [
      {
        type: 'run_start',
        runId: 'r1',
        sequence: 0,
        timestamp: '2026-01-01T00:00:00.000Z',
        prompt,
        model: 'm',
      } as never,
    ]);
    const [run] = await store.listRuns({});
    expect(run?.title).toBe(promptTitle(prompt));
    await store.close();
  });
});
