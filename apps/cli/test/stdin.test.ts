import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, startCli, tempDir } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };

/** Runs the CLI with stdin from `stdin`: a shell pipe (`cat file |`), a file (`< file`) or /dev/null. */
function cliWithStdin(
  args: string[],
  stdin: { pipe: string } | { file: string } | 'devnull',
  env: Record<string, string>,
) {
  const cwd = tempDir();
  const quoted = [process.execPath, BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  let child: ReturnType<typeof spawn>;
  let fd: number | undefined;
  if (typeof stdin === 'object' && 'pipe' in stdin) {
    const file = join(cwd, 'piped.txt');
    writeFileSync(file, stdin.pipe);
    child = spawn('sh', ['-c', `cat '${file}' | ${quoted}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  } else {
    fd = openSync(stdin === 'devnull' ? '/dev/null' : stdin.file, 'r');
    child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: [fd, 'pipe', 'pipe'] });
  }
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      if (fd !== undefined) closeSync(fd);
      resolve({ code, stdout, stderr });
    }),
  );
}

const userText = (fake: FakeProviderServer) => JSON.stringify(fake.requests[0]?.body);

describe('standard input', () => {
  it('bridle run "prompt" - appends a shell pipe to the prompt', async () => {
    server = await fakeOpenAIServer([{ content: 'Summary.', usage }]);
    const result = await cliWithStdin(
      ['run', 'Summarize this', '-'],
      { pipe: 'line one\nline two\n' },
      fakeOpenAIEnv(server),
    );
    expect(result.code).toBe(0);
    expect(userText(server)).toContain(JSON.stringify('Summarize this\n\nline one\nline two').slice(1, -1));
  });

  it('bridle run "prompt" - < file appends the file', async () => {
    server = await fakeOpenAIServer([{ content: 'Summary.', usage }]);
    const file = join(tempDir(), 'notes.txt');
    writeFileSync(file, 'the notes');
    const result = await cliWithStdin(['run', 'Summarize this', '-'], { file }, fakeOpenAIEnv(server));
    expect(result.code).toBe(0);
    expect(userText(server)).toContain('Summarize this\\n\\nthe notes');
  });

  it('piped input without - is appended too (a shell pipe and a file), before the model is called', async () => {
    server = await fakeOpenAIServer([
      { content: 'Hi.', usage },
      { content: 'Hi.', usage },
    ]);
    const result = await cliWithStdin(['run', 'Summarize this'], { pipe: 'piped text\n' }, fakeOpenAIEnv(server));
    expect(result.code).toBe(0);
    expect(userText(server)).toContain('Summarize this\\n\\npiped text');
    const file = join(tempDir(), 'notes.txt');
    writeFileSync(file, 'file text');
    server.requests.length = 0;
    const fromFile = await cliWithStdin(['run', 'Summarize this'], { file }, fakeOpenAIEnv(server));
    expect(fromFile.code).toBe(0);
    expect(userText(server)).toContain('Summarize this\\n\\nfile text');
  });

  it('a socket pair a parent left open is not waited for: the prompt runs alone', async () => {
    server = await fakeOpenAIServer([{ content: 'Hi.', usage }]);
    const child = startCli(['run', 'Say hi'], { env: fakeOpenAIEnv(server) });
    const result = await child.exited;
    expect(result.code).toBe(0);
    expect(userText(server)).toContain('Say hi');
    expect(userText(server)).not.toContain('\\n\\n');
  });

  it('no notice for /dev/null; - with nothing piped is a usage error; a stray word names the fix', async () => {
    server = await fakeOpenAIServer([{ content: 'Hi.', usage }]);
    const quiet = await cliWithStdin(['run', 'Say hi'], 'devnull', fakeOpenAIEnv(server));
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe(quiet.stderr.replace(/piped|standard input/i, ''));
    const empty = await cliWithStdin(['run', 'Say hi', '-'], 'devnull', fakeOpenAIEnv(server));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('Standard input is empty: pipe the text to append, or leave out the -.');
    const stray = await cliWithStdin(['run', 'Say', 'hi'], 'devnull', fakeOpenAIEnv(server));
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('Unexpected argument "hi" after the prompt');
  });

  it('bridle batch - reads the items from a pipe', async () => {
    server = await fakeOpenAIServer([
      { content: 'A.', usage },
      { content: 'B.', usage },
    ]);
    const out = join(tempDir(), 'results.jsonl');
    const input = '{"id":"a","prompt":"first"}\n{"id":"b","prompt":"second"}\n';
    const result = await cliWithStdin(['batch', '-', '--out', out, '-c', '1'], { pipe: input }, fakeOpenAIEnv(server));
    expect(result.code).toBe(0);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; status: string });
    expect(lines.map((line) => [line.id, line.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
    ]);
  });
});
