import { spawn, spawnSync } from 'node:child_process';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ESC = '\u001b';
const usage = { inputTokens: 10, outputTokens: 5 };
const answer = [
  '# Release notes',
  '',
  'The **fix** is in `render-run.ts`; see [the issue](https://example.com/15).',
  '',
  '- streams **block** by block',
  '- plain when piped',
  '',
  '```ts',
  'const answer = 42;',
  '```',
  '',
  'Done.',
].join('\n');

/** The environment of a user's colour terminal: no NO_COLOR. */
function terminalEnv(fake: FakeProviderServer): Record<string, string> {
  const env = fakeOpenAIEnv(fake, { TERM: 'xterm-256color', COLUMNS: '80' });
  delete env.NO_COLOR;
  return env;
}

/** Runs `bridle ...args` on a real pseudo-terminal (script(1)); resolves with the exit code and the screen. */
function onTerminal(args: string[], env: Record<string, string>) {
  const command = [process.execPath, BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: tempDir(), env, stdio: 'pipe' });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
  });
  child.stdin.end();
  return new Promise<{ code: number | null; screen: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, screen }));
  });
}

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) {
  if (process.env.CI === 'true') throw new Error('`script` (util-linux) is missing: the Markdown tests need a PTY.');
  console.warn('!!! SKIPPED: the terminal Markdown test needs `script` (util-linux) for a pseudo-terminal');
}

describe('the final answer on stdout', () => {
  it('piped, is the model text unchanged (even with FORCE_COLOR)', async () => {
    server = await fakeOpenAIServer([
      { content: answer, usage },
      { content: answer, usage },
    ]);
    const piped = await runCli(['run', 'notes?'], { env: fakeOpenAIEnv(server) });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(`${answer}\n`);
    const env = { ...fakeOpenAIEnv(server), FORCE_COLOR: '1' };
    delete (env as Record<string, string | undefined>).NO_COLOR;
    const forced = await runCli(['run', 'notes?'], { env });
    expect(forced.stdout).toBe(`${answer}\n`);
  });

  it.skipIf(!hasScript)('on a colour terminal, is rendered Markdown; with NO_COLOR or --json it is not', async () => {
    server = await fakeOpenAIServer([
      { content: answer, usage },
      { content: answer, usage },
      { content: answer, usage },
    ]);
    const rendered = await onTerminal(['run', 'notes?'], terminalEnv(server));
    expect(rendered.code).toBe(0);
    const screen = rendered.screen;
    // The heading is bold and coloured, without its "#"; emphasis and inline code are styled, not marked up.
    expect(screen).toContain(`${ESC}[1m${ESC}[4m${ESC}[35mRelease notes${ESC}[39m${ESC}[24m${ESC}[22m`);
    expect(screen).toContain(`The ${ESC}[1mfix${ESC}[22m is in ${ESC}[33mrender-run.ts${ESC}[39m; see`);
    expect(screen).toContain('https://example.com/15');
    expect(screen).toContain(`  * streams ${ESC}[1mblock${ESC}[22m by block\r\n  * plain when piped`);
    expect(screen).toContain('const');
    expect(screen).not.toContain('# Release notes');
    expect(screen).not.toContain('**fix**');
    expect(screen).not.toContain('```');
    expect(screen).toMatch(/Done\.\r\n.*✓.*completed/);

    const plain = await onTerminal(['run', 'notes?'], { ...terminalEnv(server), NO_COLOR: '1' });
    expect(plain.screen.startsWith(answer.replaceAll('\n', '\r\n'))).toBe(true);

    const json = await onTerminal(['run', 'notes?', '--json'], terminalEnv(server));
    expect(JSON.parse(json.screen).answer).toBe(answer);
  });
});
