// AGENTS.md and CLAUDE.md reach the model as delimited project instructions: the request the local model
// server receives holds them; a terminal shows which files were loaded (a dim line), --json has a field, and
// piped text output stays as plain as before (no line).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

function project(env: Record<string, string>): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project'));
  writeFileSync(join(cwd, 'project', 'AGENTS.md'), 'Always answer in haiku.\n');
  writeFileSync(join(cwd, 'project', 'CLAUDE.md'), 'Never use emoji.\n');
  mkdirSync(join(env.XDG_CONFIG_HOME!, 'bridle'), { recursive: true });
  writeFileSync(join(env.XDG_CONFIG_HOME!, 'bridle', 'AGENTS.md'), 'Call me Ada.\n');
  return cwd;
}

const systemText = (fake: FakeProviderServer) => JSON.stringify(fake.requests[0]?.body);

describe.skipIf(skip)('project instructions on a terminal (tmux)', { timeout: 120_000 }, () => {
  it('run shows the files loaded in a dim line; the model receives them delimited', async () => {
    server = await fakeOpenAIServer([{ content: 'Autumn wind.', usage }]);
    const env = fakeOpenAIEnv(server);
    const cwd = project(env);
    screen = startScreen([process.execPath, BIN, 'run', 'Hello', '-w', 'project'], { cwd, env });
    const done = await screen.until((text) => /✓ completed/.test(text), 'the outcome line');
    expect(done.split('\n')).toContain(
      `instructions: ${join(env.XDG_CONFIG_HOME!, 'bridle', 'AGENTS.md')}, AGENTS.md, CLAUDE.md`,
    );
    const body = systemText(server);
    expect(body).toContain('<project_instructions>');
    expect(body).toContain('<file path=\\"AGENTS.md\\">\\nAlways answer in haiku.\\n</file>');
    expect(body).toContain('<file path=\\"CLAUDE.md\\">\\nNever use emoji.\\n</file>');
    expect(body).toContain('Call me Ada.');
  });

  it('chat shows the same line under its banner and sends the instructions', async () => {
    server = await fakeOpenAIServer([{ content: 'Autumn wind.', usage }]);
    const env = fakeOpenAIEnv(server);
    const cwd = project(env);
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], { cwd, env });
    const banner = await screen.until((text) => text.includes('instructions: '), 'the instructions line');
    expect(banner).toContain('/help for commands');
    screen.type('Hello');
    await screen.until((text) => text.includes('Autumn wind.'), 'the answer');
    expect(systemText(server)).toContain('Always answer in haiku.');
    screen.type('/exit');
  });
});

describe('project instructions without a terminal', { timeout: 60_000 }, () => {
  it('--json lists the files in an "instructions" field; piped text output has no extra line', async () => {
    server = await fakeOpenAIServer([
      { content: 'One.', usage },
      { content: 'Two.', usage },
    ]);
    const env = fakeOpenAIEnv(server);
    const cwd = project(env);
    const json = await runCli(['run', 'Hello', '-w', 'project', '--json'], { cwd, env });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).instructions).toEqual([
      { path: join(env.XDG_CONFIG_HOME!, 'bridle', 'AGENTS.md'), chars: 13, truncated: false },
      { path: 'AGENTS.md', chars: 24, truncated: false },
      { path: 'CLAUDE.md', chars: 17, truncated: false },
    ]);
    const text = await runCli(['run', 'Hello', '-w', 'project'], { cwd, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('Two.\n');
    expect(text.stderr).not.toContain('instructions');
    expect(text.stderr).not.toContain('\u001b');
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Never use emoji.');
  });
});
