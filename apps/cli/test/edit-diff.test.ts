// Approving an edit on a real terminal (tmux renders what a person sees): the question shows the diff the call would
// make, one key answers it (no Enter), and the diff the edit made follows the tool line. In run and in chat.
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
const original = ['export function greet(name) {', "  return 'Hello ' + name;", '}', ''].join('\n');
const editCall = {
  content: '',
  toolCalls: [
    {
      id: 'c1',
      name: 'edit_file',
      arguments: { path: 'src/greet.js', oldText: "'Hello ' + name", newText: "'Hello, ' + name + '!'" },
    },
  ],
  usage,
};

function project(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project', 'src'), { recursive: true });
  writeFileSync(join(cwd, 'project', 'src', 'greet.js'), original);
  return cwd;
}

const lines = (text: string) => text.split('\n');
const ALLOW = 'Allow? [y] yes  [n] no  [a] always for edit_file  [e] show all:';

describe.skipIf(skip)('edits approved with their diff (tmux)', { timeout: 120_000 }, () => {
  it('run: the diff before the question, y without Enter, then the diff the edit made', async () => {
    server = await fakeOpenAIServer([editCall, { content: 'Done.', usage }]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'run', 'Greet nicer', '-w', 'project'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    const asked = await screen.until((text) => text.includes(ALLOW), 'the question');
    const before = lines(asked);
    const question = before.findIndex((line) => line.startsWith('? edit_file'));
    expect(before.slice(question + 1, question + 8)).toEqual([
      '--- src/greet.js',
      '+++ src/greet.js',
      '@@ -1,3 +1,3 @@',
      ' export function greet(name) {',
      "-  return 'Hello ' + name;",
      "+  return 'Hello, ' + name + '!';",
      ' }',
    ]);
    screen.type('y', false);
    const done = await screen.until((text) => /✓ completed/.test(text), 'the outcome line');
    expect(lines(done)).toContain(`  ${ALLOW} y`);
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toContain("'Hello, ' + name + '!'");
    // After the tool line, the diff of what was written.
    const after = lines(done);
    const toolLine = after.findIndex((line) => line.startsWith('← edit_file'));
    expect(toolLine).toBeGreaterThan(question);
    expect(after.slice(toolLine + 1, toolLine + 4)).toEqual([
      '--- src/greet.js',
      '+++ src/greet.js',
      '@@ -1,3 +1,3 @@',
    ]);
  });

  it('run: Ctrl-C at the question denies and stops the run; the file stays', async () => {
    server = await fakeOpenAIServer([editCall, { content: 'Done.', usage }]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'run', 'Greet nicer', '-w', 'project'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    await screen.until((text) => text.includes(ALLOW), 'the question');
    screen.type('\u0003', false);
    await screen.until((text) => /✗ aborted/.test(text), 'the aborted outcome line');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toBe(original);
    expect(server.requests).toHaveLength(1);
  });

  it('chat: e shows everything and asks again, n denies, without Enter; a new file shows as its content', async () => {
    server = await fakeOpenAIServer([
      editCall,
      { content: 'Not changed.', usage },
      {
        content: '',
        toolCalls: [{ id: 'c2', name: 'write_file', arguments: { path: 'notes.md', content: 'one\ntwo\n' } }],
        usage,
      },
      { content: 'Wrote notes.', usage },
    ]);
    const cwd = project();
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], { cwd, env: fakeOpenAIEnv(server) });
    await screen.until((text) => text.includes('/help for commands'), 'the chat banner');
    screen.type('Greet nicer');
    await screen.until((text) => text.includes(ALLOW), 'the question');
    screen.type('e', false);
    // The arguments are printed, then the question again: wait for the second question (the screen can be read
    // between the two writes), then check that the whole arguments stand above it.
    const shown = await screen.until(
      (text) => text.includes('"oldText": ') && text.endsWith(`  ${ALLOW}`),
      'the whole arguments and the question again',
    );
    expect(shown.split(`  ${ALLOW}`)).toHaveLength(3);
    expect(shown.slice(shown.lastIndexOf('"oldText": '))).toContain(`"newText": "'Hello, ' + name + '!'"`);
    screen.type('n', false);
    await screen.until((text) => text.includes('Not changed.'), 'the answer after the denial');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toBe(original);

    screen.type('Write notes');
    const asked = await screen.until((text) => text.includes('always for write_file'), 'the write question');
    const view = lines(asked);
    const header = view.lastIndexOf('+++ notes.md (new file)');
    expect(view.slice(header + 1, header + 4)).toEqual(['@@ -0,0 +1,2 @@', '+one', '+two']);
    screen.type('y', false);
    await screen.until((text) => text.includes('Wrote notes.'), 'the answer after the write');
    expect(readFileSync(join(cwd, 'project', 'notes.md'), 'utf8')).toBe('one\ntwo\n');
    screen.type('/exit');
  });
});
