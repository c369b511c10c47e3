// Titles and the session picker: `bridle runs` shows each run's title (the first line of its prompt), and
// `bridle chat --resume` on a real terminal (tmux) offers this folder's sessions by title; without a terminal
// it asks for the id instead.
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { sqliteProblem } from './sqlite-probe';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skipScreen = tmuxUnavailable() !== undefined;
const sqliteError = await sqliteProblem('session picker tests');
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

async function twoSessions() {
  server = await fakeOpenAIServer([
    { content: 'Noted the bug.', usage },
    { content: 'Noted the release.', usage },
    { content: 'It was about the login bug.', usage },
  ]);
  const cwd = tempDir();
  const env = fakeOpenAIEnv(server, { BRIDLE_STORE: `sqlite:${join(tempDir(), 'runs.db')}` });
  const long = `Plan the release ${'with many details '.repeat(10)}\nsecond line`;
  expect((await runCli(['chat'], { cwd, env, input: 'Fix the login bug\n' })).code).toBe(0);
  expect((await runCli(['chat'], { cwd, env, input: `${long.replace('\n', ' ')}\n` })).code).toBe(0);
  return { cwd, env };
}

describe.skipIf(sqliteError !== undefined)('titles and the session picker', { timeout: 180_000 }, () => {
  it('bridle runs shows the title of each run, shortened to one line; --json has the whole title', async () => {
    const { cwd, env } = await twoSessions();
    const listed = await runCli(['runs'], { cwd, env });
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ {2}Plan the release with many details with many details with m…$/);
    expect(lines[1]).toMatch(/ {2}Fix the login bug$/);
    const json = (await runCli(['runs', '--json'], { cwd, env })).stdout.trim().split('\n');
    expect(JSON.parse(json[1] as string).title).toBe('Fix the login bug');
  });

  it.skipIf(skipScreen)('chat --resume picks a session of this folder by its title (tmux)', async () => {
    const { cwd, env } = await twoSessions();
    screen = startScreen([process.execPath, BIN, 'chat', '--resume'], { cwd, env });
    const picker = await screen.until((text) => text.includes('Fix the login bug'), 'the picker');
    expect(picker).toContain('Resume which session of this folder?');
    expect(picker).toContain('Plan the release with many details');
    // Newest first: the second session is highlighted; one down (j, as the arrow key) is the first.
    screen.type('j', false);
    await screen.until((text) => /● Fix the login bug/.test(text), 'the first session highlighted');
    screen.type('', true);
    await screen.until((text) => /session [0-9a-f-]{36} \(2 messages\)/.test(text), 'the chat banner');
    screen.type('What was it about?');
    await screen.until((text) => text.includes('It was about the login bug.'), 'the answer');
    const body = JSON.stringify(server?.requests[2]?.body);
    expect(body).toContain('Fix the login bug');
    expect(body).not.toContain('Plan the release');
    screen.type('/exit');
  });

  it('chat --resume without a terminal asks for the id; an unknown id is an error; a known one resumes', async () => {
    const { cwd, env } = await twoSessions();
    const none = await runCli(['chat', '--resume'], { cwd, env, input: 'Hi\n' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'bridle chat --resume without an id shows a picker on a terminal, and there is none here: pass the session id (bridle chat --resume <id>)',
    );
    const unknown = await runCli(['chat', '--resume', 'nope'], { cwd, env, input: 'Hi\n' });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No session nope in the store');
    const both = await runCli(['chat', '--resume', '--continue'], { cwd, env, input: '' });
    expect(both.code).toBe(2);
  });
});
