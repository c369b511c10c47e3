// Remembered approval rules on a real terminal (tmux renders what a person sees): `a`, then `y` to remember,
// makes the next run go ahead without a question; a protected path is still asked; revoking asks again. The
// rules live in the user's config folder (never in the project), and a corrupt file stops the run (exit 2).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';
import { type Screen, startScreen, tmuxUnavailable } from './tmux-screen';

const skip = tmuxUnavailable() !== undefined;
beforeAll(requireBuild);

const servers: FakeProviderServer[] = [];
let screen: Screen | undefined;
afterEach(async () => {
  screen?.close();
  screen = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const usage = { inputTokens: 10, outputTokens: 5 };
const edit = (path: string, oldText: string, newText: string) => ({
  content: '',
  toolCalls: [{ id: 'c1', name: 'edit_file', arguments: { path, oldText, newText } }],
  usage,
});
const ALLOW = 'Allow? [y] yes  [n] no  [a] always for edit_file  [e] show all:';
const REMEMBER = 'Remember edit_file(src/**) for this folder? [y] yes  [n] this session only:';

function project(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project', 'src'), { recursive: true });
  writeFileSync(join(cwd, 'project', 'src', 'greet.js'), 'hello\n');
  writeFileSync(join(cwd, 'project', 'src', '.env'), 'TOKEN=1\n');
  return cwd;
}

async function serve(steps: Parameters<typeof fakeOpenAIServer>[0]) {
  const server = await fakeOpenAIServer(steps);
  servers.push(server);
  return server;
}

describe.skipIf(skip)('remembered rules (tmux)', { timeout: 180_000 }, () => {
  it('a then y remembers edit_file(src/**); the next run is not asked; a protected path is; revoke asks again', async () => {
    const cwd = project();
    const first = await serve([edit('src/greet.js', 'hello', 'hello there'), { content: 'Done.', usage }]);
    const env = fakeOpenAIEnv(first);
    const start = (server: FakeProviderServer) => {
      screen?.close();
      screen = startScreen([process.execPath, BIN, 'run', 'Edit', '-w', 'project'], {
        cwd,
        env: { ...env, OPENAI_BASE_URL: server.baseURL },
      });
      return screen;
    };

    let terminal = start(first);
    await terminal.until((text) => text.includes(ALLOW), 'the question');
    terminal.type('a', false);
    await terminal.until((text) => text.includes(REMEMBER), 'the remember question');
    terminal.type('y', false);
    const remembered = await terminal.until((text) => /✓ completed/.test(text), 'the outcome line');
    expect(remembered).toContain(`  ${REMEMBER} y`);
    expect(remembered).toContain("  remembered; forget it with: bridle permissions --revoke 'edit_file(src/**)'");
    // Kept in the user's config folder, never in the project.
    expect(readdirSync(join(cwd, 'project')).sort()).toEqual(['src']);
    const file = JSON.parse(readFileSync(join(env.XDG_CONFIG_HOME!, 'bridle', 'permissions.json'), 'utf8'));
    expect(Object.values(file.folders).map((entry) => (entry as { rules: { rule: string }[] }).rules[0]?.rule)).toEqual(
      ['edit_file(src/**)'],
    );

    // The next run: no question.
    const second = await serve([edit('src/greet.js', 'hello there', 'hi'), { content: 'Done again.', usage }]);
    terminal = start(second);
    const quiet = await terminal.until((text) => /✓ completed/.test(text), 'the second outcome line');
    expect(quiet).not.toContain('Allow?');
    expect(quiet).toContain('  edit_file allowed by your rule edit_file(src/**)');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toBe('hi\n');

    // A protected path under src/ is still asked (and the workspace refuses it anyway).
    const third = await serve([edit('src/.env', 'TOKEN=1', 'TOKEN=2'), { content: 'Left alone.', usage }]);
    terminal = start(third);
    await terminal.until((text) => text.includes(ALLOW), 'the question for the protected path');
    terminal.type('n', false);
    await terminal.until((text) => text.includes('Left alone.'), 'the answer after the denial');
    expect(readFileSync(join(cwd, 'project', 'src', '.env'), 'utf8')).toBe('TOKEN=1\n');

    // Listed, revoked, and asked again.
    const listed = await runCli(['permissions', '--list', '-w', 'project'], { cwd, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^Rules remembered for .*project:\n {2}edit_file\(src\/\*\*\) {2}since \d{4}-/);
    const json = await runCli(['permissions', '--json', '-w', 'project'], { cwd, env });
    expect(JSON.parse(json.stdout).rule).toBe('edit_file(src/**)');
    const revoked = await runCli(['permissions', '--revoke', 'edit_file(src/**)', '-w', 'project'], { cwd, env });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^Revoked edit_file\(src\/\*\*\) for .*project: its calls are asked again\.\n$/);
    const again = await runCli(['permissions', '--revoke', 'edit_file(src/**)', '-w', 'project'], { cwd, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('No rule edit_file(src/**) is remembered for');
    const fourth = await serve([edit('src/greet.js', 'hi', 'hey'), { content: 'Done.', usage }]);
    terminal = start(fourth);
    await terminal.until((text) => text.includes(ALLOW), 'the question after the revoke');
    terminal.type('n', false);
    await terminal.until((text) => /✓ completed/.test(text), 'the last outcome line');
  });
});

describe.skipIf(skip)('remembered rules in chat (tmux)', { timeout: 120_000 }, () => {
  it('a then y in chat remembers the rule; the next chat in the folder is not asked', async () => {
    const cwd = project();
    const first = await serve([edit('src/greet.js', 'hello', 'hello there'), { content: 'Edited.', usage }]);
    const env = fakeOpenAIEnv(first);
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], { cwd, env });
    await screen.until((text) => text.includes('/help for commands'), 'the banner');
    screen.type('Edit it');
    await screen.until((text) => text.includes(ALLOW), 'the question');
    screen.type('a', false);
    await screen.until((text) => text.includes(REMEMBER), 'the remember question');
    screen.type('y', false);
    await screen.until((text) => text.includes('Edited.'), 'the answer');
    screen.type('/exit');

    const second = await serve([edit('src/greet.js', 'hello there', 'hi'), { content: 'Edited again.', usage }]);
    screen.close();
    screen = startScreen([process.execPath, BIN, 'chat', '-w', 'project'], {
      cwd,
      env: { ...env, OPENAI_BASE_URL: second.baseURL },
    });
    await screen.until((text) => text.includes('/help for commands'), 'the second banner');
    screen.type('Edit it again');
    const quiet = await screen.until((text) => text.includes('Edited again.'), 'the second answer');
    expect(quiet).not.toContain('Allow?');
    expect(quiet).toContain('  edit_file allowed by your rule edit_file(src/**)');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toBe('hi\n');
    screen.type('/exit');
  });
});

describe('remembered rules without a terminal', { timeout: 60_000 }, () => {
  it('a remembered rule applies to a piped run; a corrupt permissions.json stops the run before any model call', async () => {
    const cwd = project();
    const server = await serve([edit('src/greet.js', 'hello', 'hi'), { content: 'Done.', usage }]);
    const env = fakeOpenAIEnv(server);
    const configDir = join(env.XDG_CONFIG_HOME!, 'bridle');
    mkdirSync(configDir, { recursive: true });
    const { realpathSync } = await import('node:fs');
    const folder = realpathSync(join(cwd, 'project'));
    const file = join(configDir, 'permissions.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, folders: { [folder]: { rules: [{ rule: 'edit_file(src/**)', addedAt: 'x' }] } } }),
    );
    const result = await runCli(['run', 'Edit', '-w', 'project'], { cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('  edit_file allowed by your rule edit_file(src/**)\n');
    expect(result.stderr).not.toContain('\u001b');
    expect(readFileSync(join(cwd, 'project', 'src', 'greet.js'), 'utf8')).toBe('hi\n');

    writeFileSync(file, '{"version":1,"folders":{');
    const corrupt = await runCli(['run', 'Edit', '-w', 'project'], { cwd, env });
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toContain(`bridle: The remembered permissions file ${file} is not valid JSON`);
    expect(corrupt.stderr).toContain('repair the JSON, or delete the file');
    expect(server.requests).toHaveLength(2);
  });

  it("--list shows the config files' rules after the remembered ones; an untrusted folder's only once trusted", async () => {
    const cwd = project();
    const env = cliEnv({});
    const configDir = join(env.XDG_CONFIG_HOME!, 'bridle');
    mkdirSync(configDir, { recursive: true });
    const userConfig = join(configDir, 'config.json');
    writeFileSync(userConfig, JSON.stringify({ permissions: { allow: ['run_command(test)'] } }));
    const folderConfig = join(cwd, 'project', 'bridle.config.json');
    writeFileSync(folderConfig, JSON.stringify({ permissions: { allow: ['write_file(docs/**)'] } }));

    const untrusted = await runCli(['permissions', '-w', 'project'], { cwd, env });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stdout).toMatch(/^No rules remembered for .*project \(.*permissions\.json\)\.\n/);
    expect(untrusted.stdout).toContain(
      `Rules from the config files applied here (${userConfig}):\n  run_command(test)\n`,
    );
    expect(untrusted.stdout).not.toContain('write_file');
    expect(untrusted.stderr).toContain(`bridle: ignored ${folderConfig}: the folder is not trusted`);

    expect((await runCli(['trust', join(cwd, 'project')], { env })).code).toBe(0);
    const trusted = await runCli(['permissions', '-w', 'project'], { cwd, env });
    expect(trusted.stdout).toContain(
      `Rules from the config files applied here (${userConfig}, ${folderConfig}):\n  run_command(test)\n  write_file(docs/**)\n`,
    );
    const json = await runCli(['permissions', '--json', '-w', 'project'], { cwd, env });
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { source: 'config', rule: 'run_command(test)', files: [userConfig, folderConfig] },
      { source: 'config', rule: 'write_file(docs/**)', files: [userConfig, folderConfig] },
    ]);
  });
});
