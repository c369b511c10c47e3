// What a person sees while a run works on a colour terminal (tmux renders the redraws and erases): the answer's
// Markdown appears block by block as it streams, the block still arriving is drawn in place, and an activity line
// says what is happening; it is gone once the run ends. Piped and NO_COLOR output never get it.
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skip = tmuxUnavailable() !== undefined;
beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
let screen: Screen | undefined;
afterEach(async () => {
  screen?.close();
  screen = undefined;
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const words = Array.from({ length: 60 }, (_, index) => `w${index + 1}`);
// A heading, then a long paragraph: the stream stops (and hangs) in the middle of the paragraph.
const answer = `# Release notes\n\n${words.join(' ')}\n\nThe end.`;

/** A colour terminal's environment (no NO_COLOR). */
function terminalEnv(fake: FakeProviderServer): Record<string, string> {
  const env = fakeOpenAIEnv(fake);
  delete env.NO_COLOR;
  return env;
}

const activityLine = (text: string) => text.split('\n').find((line) => /· step \d+ ·/.test(line));

describe.skipIf(skip)('live output on a terminal (tmux)', { timeout: 120_000 }, () => {
  it('shows the text as it arrives, the growing block in place, with an activity line; Ctrl-C clears it', async () => {
    server = await fakeOpenAIServer([{ type: 'hang', response: { content: answer, usage }, afterEvents: 40 }]);
    screen = startScreen([process.execPath, BIN, 'run', 'notes?'], { cwd: tempDir(), env: terminalEnv(server) });
    const streaming = await screen.until(
      (text) => /\bw20\b/.test(text) && activityLine(text) !== undefined,
      'the streamed words and an activity line',
    );
    // The heading block is complete and rendered (no "#"); the paragraph still arriving is shown as it grows.
    expect(streaming).toContain('Release notes');
    expect(streaming).not.toContain('# Release');
    expect(streaming).not.toContain('w60');
    expect(activityLine(streaming)).toMatch(/^\S writing · \d+s · step 1 · 0 tokens$/);
    // The activity line is the last line, below the text.
    expect(streaming.split('\n').at(-1)).toBe(activityLine(streaming));

    screen.type('\u0003', false);
    const ended = await screen.until((text) => /✗ aborted/.test(text), 'the aborted outcome line');
    expect(activityLine(ended)).toBeUndefined();
    expect(ended).toContain('w20');
  });

  it('says "thinking" with the step while the model has not answered yet', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    screen = startScreen([process.execPath, BIN, 'run', 'hi'], { cwd: tempDir(), env: terminalEnv(server) });
    const waiting = await screen.until((text) => activityLine(text) !== undefined, 'an activity line');
    expect(activityLine(waiting)).toMatch(/^\S thinking · \d+s · step 1 · 0 tokens$/);
    screen.type('\u0003', false);
    const ended = await screen.until((text) => /✗ aborted/.test(text), 'the aborted outcome line');
    expect(activityLine(ended)).toBeUndefined();
  });

  it('chat shows the same activity line for a turn, and clears it when Ctrl-C stops the turn', async () => {
    server = await fakeOpenAIServer([{ type: 'hang' }]);
    screen = startScreen([process.execPath, BIN, 'chat'], { cwd: tempDir(), env: terminalEnv(server) });
    await screen.until((text) => text.includes('/help for commands'), 'the chat banner');
    screen.type('hello');
    const waiting = await screen.until((text) => activityLine(text) !== undefined, 'an activity line');
    expect(activityLine(waiting)).toMatch(/^\S thinking · \d+s · step 1 · 0 tokens$/);
    screen.type('\u0003', false);
    const ended = await screen.until((text) => /✗ aborted/.test(text), 'the aborted outcome line');
    expect(activityLine(ended)).toBeUndefined();
    screen.type('/exit');
  });

  it('after a tool call and a long answer, leaves only the answer and the outcome line', async () => {
    server = await fakeOpenAIServer([
      { content: '', toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '6 * 7' } }], usage },
      { content: answer, usage },
    ]);
    screen = startScreen([process.execPath, BIN, 'run', 'time?'], { cwd: tempDir(), env: terminalEnv(server) });
    const done = await screen.until((text) => /✓ completed/.test(text), 'the completed outcome line');
    expect(activityLine(done)).toBeUndefined();
    expect(done).toContain('w60');
    expect(done).toContain('The end.');
    expect(done.split('\n').filter((line) => line.includes('The end.'))).toHaveLength(1);
  });
});

describe('without a terminal', () => {
  it('piped output has no activity line and no escape sequence (even with FORCE_COLOR)', async () => {
    server = await fakeOpenAIServer([{ content: answer, usage }]);
    const env = { ...fakeOpenAIEnv(server), FORCE_COLOR: '1' };
    delete (env as Record<string, string | undefined>).NO_COLOR;
    const result = await runCli(['run', 'notes?'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${answer}\n`);
    expect(result.stderr).not.toMatch(/thinking|writing|· step/);
  });
});
