// What a person sees on the terminal (tmux renders it, redraws and erases included) when chat and run ask
// for approval: the question stays on screen, and it shows every argument key.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, tempDir } from './cli-process';
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
const writeCall = (id: string, args: unknown) => ({
  content: '',
  toolCalls: [{ id, name: 'write_file', arguments: args }],
  usage,
});

function project(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project'));
  writeFileSync(join(cwd, 'project', 'a.txt'), 'hello world\n');
  return cwd;
}

const ALLOW = 'Allow? [y] yes  [n] no  [a] always for write_file';
const lines = (text: string) => text.split('\n');

describe.skipIf(skip)('approval questions on the screen (tmux)', { timeout: 120_000 }, () => {
  it('chat keeps its question on screen after the prompt redraw; the answer shows beside it', async () => {
    server = await fakeOpenAIServer([
      writeCall('c1', { path: 'b.txt', content: 'chat' }),
      { content: 'Wrote it.', usage },
    ]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], { cwd, env: fakeOpenAIEnv(server) });
    await screen.until((text) => text.includes('/help for commands'));
    screen.type('Write b.txt');
    // The question is drawn, then chat's line editor takes the answer: the question must still be there.
    const asked = await screen.until((text) => text.includes(`${ALLOW}  [e] show all:`));
    expect(lines(asked)).toContain('? write_file {"path":"b.txt","content":"chat"}');
    screen.type('y');
    const done = await screen.until((text) => text.includes('Wrote it.') && /✓ completed/.test(text));
    expect(lines(done)).toContain(`  ${ALLOW}  [e] show all: y`);
    expect(readFileSync(join(cwd, 'project', 'b.txt'), 'utf8')).toBe('chat');
    screen.type('/exit');
  });

  it('shows every key of a long call, the long value shortened in its middle, the path whole; v shows all', async () => {
    const content = `${'a'.repeat(3000)}${'z'.repeat(3000)}`;
    const path = 'deep/'.repeat(60).concat('target.txt');
    server = await fakeOpenAIServer([writeCall('c1', { content, path }), { content: 'Wrote it.', usage }]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], {
      cwd,
      env: fakeOpenAIEnv(server),
      // Tall enough for the whole arguments and the whole diff of the new file (each 6,000 characters).
      height: 120,
    });
    await screen.until((text) => text.includes('/help for commands'));
    screen.type('Write the file');
    const asked = await screen.until((text) => text.includes(`${ALLOW}  [e] show all:`));
    expect(lines(asked)).toContain(
      `? write_file {"content":"${'a'.repeat(100)}…[5800 characters]…${'z'.repeat(100)}","path":"${path}"}`,
    );
    screen.type('v');
    // The whole arguments, then the question again.
    const shown = await screen.until(
      (text) => text.includes(`"content": "${content}"`) && text.endsWith(`${ALLOW}  [e] show all:`),
    );
    expect(shown).toContain(`  "path": "${path}"`);
    screen.type('y');
    await screen.until((text) => text.includes('Wrote it.'));
    expect(readFileSync(join(cwd, 'project', path), 'utf8')).toBe(content);
    screen.type('/exit');
  });

  it('run shows the same view', async () => {
    const content = 'x'.repeat(1000);
    server = await fakeOpenAIServer([writeCall('c1', { content, path: 'c.txt' }), { content: 'Done.', usage }]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'run', 'Write c.txt', '-w', 'project'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    const asked = await screen.until((text) => text.includes(ALLOW));
    expect(lines(asked)).toContain(
      `? write_file {"content":"${'x'.repeat(100)}…[800 characters]…${'x'.repeat(100)}","path":"c.txt"}`,
    );
    screen.type('n');
    const done = await screen.until((text) => /✓ completed/.test(text));
    expect(lines(done)).toContain(`  ${ALLOW}  [e] show all: n`);
    expect(lines(done)).toContain('  denied write_file');
  });
});
