import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir, until } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };
const call = (id: string, name: string, args: unknown) => ({
  content: '',
  toolCalls: [{ id, name, arguments: args }],
  usage,
});

function project(): string {
  const cwd = tempDir();
  mkdirSync(join(cwd, 'project'));
  writeFileSync(join(cwd, 'project', 'a.txt'), 'hello world\n');
  return cwd;
}

/** The tool results the model was sent in the last request (Responses or Chat Completions shape). */
function toolResults(fake: FakeProviderServer): string[] {
  const last = fake.requests.at(-1)?.body as
    | { input?: { type?: string; output?: string }[]; messages?: { role?: string; content?: string }[] }
    | undefined;
  if (last?.messages) return last.messages.filter((item) => item.role === 'tool').map((item) => item.content ?? '');
  return (last?.input ?? []).filter((item) => item.type === 'function_call_output').map((item) => item.output ?? '');
}

describe('approval of writes, edits and commands', () => {
  it('without a terminal and without --yes, denies them with one line per tool naming --yes; the files stay', async () => {
    server = await fakeOpenAIServer([
      call('c1', 'write_file', { path: 'b.txt', content: 'new' }),
      call('c2', 'write_file', { path: 'c.txt', content: 'new' }),
      call('c3', 'edit_file', { path: 'a.txt', oldText: 'world', newText: 'there' }),
      { content: 'I could not change anything.', usage },
    ]);
    const cwd = project();
    const result = await runCli(['run', 'Change files', '-w', 'project'], { cwd, env: fakeOpenAIEnv(server) });
    expect(result.code).toBe(0);
    const denials = result.stderr.split('\n').filter((line) => line.startsWith('bridle: denied'));
    expect(denials).toEqual([
      'bridle: denied write_file: it needs approval and there is no terminal to ask on. Pass --yes to approve every tool call, or run on a terminal to be asked.',
      'bridle: denied edit_file: it needs approval and there is no terminal to ask on. Pass --yes to approve every tool call, or run on a terminal to be asked.',
    ]);
    expect(existsSync(join(cwd, 'project', 'b.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'project', 'c.txt'))).toBe(false);
    expect(readFileSync(join(cwd, 'project', 'a.txt'), 'utf8')).toBe('hello world\n');
    expect(toolResults(server)).toEqual([
      'Denied: the approve hook refused this call to write_file.',
      'Denied: the approve hook refused this call to write_file.',
      'Denied: the approve hook refused this call to edit_file.',
    ]);
  });

  it('--yes approves every call without asking', async () => {
    server = await fakeOpenAIServer([
      call('c1', 'write_file', { path: 'b.txt', content: 'new' }),
      call('c2', 'edit_file', { path: 'a.txt', oldText: 'world', newText: 'there' }),
      { content: 'Done.', usage },
    ]);
    const cwd = project();
    const result = await runCli(['run', 'Change files', '-w', 'project', '--yes'], {
      cwd,
      env: fakeOpenAIEnv(server),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('denied');
    expect(readFileSync(join(cwd, 'project', 'b.txt'), 'utf8')).toBe('new');
    expect(readFileSync(join(cwd, 'project', 'a.txt'), 'utf8')).toBe('hello there\n');
  });

  it('reading, listing and searching never ask', async () => {
    server = await fakeOpenAIServer([call('c1', 'read_file', { path: 'a.txt' }), { content: 'Read it.', usage }]);
    const cwd = project();
    const result = await runCli(['run', 'Read a.txt', '-w', 'project'], { cwd, env: fakeOpenAIEnv(server) });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('denied');
    expect(toolResults(server)[0]).toContain('hello world');
  });
});

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) console.warn('!!! SKIPPED: the approval prompt test needs `script` (util-linux) for a pseudo-terminal');

describe.skipIf(!hasScript)('the approval prompt on a terminal (a real pseudo-terminal through script(1))', () => {
  it('asks y / n / a: `a` approves this tool from then on, `n` denies, and the model hears which', async () => {
    server = await fakeOpenAIServer([
      call('c1', 'write_file', { path: 'b.txt', content: 'first' }),
      call('c2', 'write_file', { path: 'c.txt', content: 'second' }),
      call('c3', 'edit_file', { path: 'a.txt', oldText: 'world', newText: '\u001b]0;pwned\u0007' }),
      call('c4', 'edit_file', { path: 'a.txt', oldText: 'world', newText: 'there' }),
      { content: 'Done.', usage },
    ]);
    const cwd = project();
    const command = [process.execPath, BIN, 'run', 'Change files', '-w', 'project']
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd,
      env: { ...fakeOpenAIEnv(server), TERM: 'xterm' },
      stdio: 'pipe',
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const prompts = () => screen.split('Allow? [y] yes  [n] no  [a] always for ').length - 1;

    await until(() => prompts() === 1);
    expect(screen).toContain('? write_file {"path":"b.txt","content":"first"}');
    child.stdin.write('a');
    // `a` offers to remember a rule for the folder; `n` keeps it to this process.
    await until(() => screen.includes('Remember write_file(b.txt) for this folder? [y] yes  [n] this session only: '));
    child.stdin.write('n');
    await until(() => prompts() === 2);
    // c2 (write_file again) ran without a question; c3 is the first edit.
    expect(screen).toContain('? edit_file');
    // The model's control characters are shown escaped, never sent to the terminal.
    expect(screen).not.toContain('\u001b]0;pwned');
    expect(screen).toContain('\\u001b]0;pwned\\u0007');
    child.stdin.write('n');
    await until(() => prompts() === 3);
    child.stdin.write('y');
    expect(await exited).toBe(0);
    child.stdin.end();

    expect(readFileSync(join(cwd, 'project', 'b.txt'), 'utf8')).toBe('first');
    expect(readFileSync(join(cwd, 'project', 'c.txt'), 'utf8')).toBe('second');
    expect(readFileSync(join(cwd, 'project', 'a.txt'), 'utf8')).toBe('hello there\n');
    const results = toolResults(server);
    expect(results[2]).toBe('Denied: the approve hook refused this call to edit_file.');
    expect(results[3]).toContain('a.txt');
    expect(screen).toContain('✓ completed');
  });

  it('in chat, the answer to the question is not taken for the next message', async () => {
    server = await fakeOpenAIServer([
      call('c1', 'write_file', { path: 'b.txt', content: 'chat' }),
      { content: 'Wrote it.', usage },
      { content: 'Second answer.', usage },
    ]);
    const cwd = project();
    const command = [process.execPath, BIN, 'chat', '-w', 'project']
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd,
      env: { ...fakeOpenAIEnv(server), TERM: 'xterm' },
      stdio: 'pipe',
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(() => screen.includes('/help for commands'));
    child.stdin.write('Write b.txt\n');
    await until(() => screen.includes('Allow? [y] yes'));
    // One key answers, no Enter needed.
    child.stdin.write('y');
    await until(() => screen.includes('Wrote it.'));
    await until(() => (screen.match(/✓ completed/g) ?? []).length === 1);
    child.stdin.write('And now?\n');
    await until(() => screen.includes('Second answer.'));
    child.stdin.write('/exit\n');
    expect(await exited).toBe(0);
    child.stdin.end();
    expect(readFileSync(join(cwd, 'project', 'b.txt'), 'utf8')).toBe('chat');
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body)).toContain('And now?');
    expect(JSON.stringify(server.requests[2]?.body)).not.toContain('"y"');
  });
});
