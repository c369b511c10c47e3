import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderRequest, type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, fakeOpenAIEnv, requireBuild, runCli, startCli, tempDir, until } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 1, outputTokens: 1 };
const env = fakeOpenAIEnv;
/** Answers "answer <id>" to a prompt "item <id>". */
const answerEach = () => (request: FakeProviderRequest) => ({
  content: `answer ${/item ([\w-]+)/.exec(JSON.stringify(request.body))?.[1] ?? '?'}`,
  usage,
});
const resultLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id: string; status: string; answer?: string });

describe('red team: bridle run flags', () => {
  it('--trace to a path that cannot be written stops before any model call, exit 2, nothing created', async () => {
    server = await fakeOpenAIServer([{ content: 'never', usage }]);
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), 'x');
    for (const trace of ['file/trace.jsonl', 'missing/trace.jsonl', '.']) {
      const result = await runCli(['run', 'hi', '--trace', trace], { cwd: dir, env: env(server) });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`bridle: Cannot write the trace to ${join(dir, trace)}`);
      expect(result.stderr).toContain('Give a file in an existing, writable folder.');
      expect(result.stdout).toBe('');
    }
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('--workspace / (or a symlink to it, or the home folder) is refused with exit 2 before any model call', async () => {
    server = await fakeOpenAIServer([{ content: 'never', usage }]);
    const dir = tempDir();
    const home = tempDir('bridle-home-');
    symlinkSync('/', join(dir, 'root-link'));
    for (const [workspace, what] of [
      ['/', 'the root of the file system'],
      ['root-link', 'the root of the file system'],
      [home, 'your home folder'],
    ] as const) {
      const result = await runCli(['run', 'hi', '--workspace', workspace], {
        cwd: dir,
        env: env(server, { HOME: home }),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`is ${what}`);
      expect(result.stderr).toContain('Give the project folder instead.');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a --workspace symlink to a project folder works and is jailed to its target', async () => {
    server = await fakeOpenAIServer([
      { content: '', toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'note.txt' } }], usage },
      { content: 'done', usage },
    ]);
    const dir = tempDir();
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(dir, 'project', 'note.txt'), 'inside the project');
    symlinkSync(join(dir, 'project'), join(dir, 'link'));
    const result = await runCli(['run', 'read it', '--workspace', 'link'], { cwd: dir, env: env(server) });
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[1]?.body)).toContain('inside the project');
  });

  it('--allow-command refuses shell syntax and unknown executables with exit 2 (no shell is ever used)', async () => {
    server = await fakeOpenAIServer([{ content: 'never', usage }]);
    const dir = tempDir();
    mkdirSync(join(dir, 'ws'));
    for (const command of ['x=ls; rm -rf /', 'x=$(id)', 'x=echo a | sh', 'x=cat > out', 'x=ls *']) {
      const result = await runCli(['run', 'hi', '--workspace', 'ws', '--allow-command', command], {
        cwd: dir,
        env: env(server),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('uses shell syntax');
    }
    const missing = await runCli(['run', 'hi', '--workspace', 'ws', '--allow-command', 'x=no-such-program-xyz'], {
      cwd: dir,
      env: env(server),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('executable "no-such-program-xyz" was not found on PATH');
    expect(server.requests).toHaveLength(0);
  });

  it('never writes ANSI codes with NO_COLOR, nor to a pipe without it', async () => {
    for (const extra of [{ NO_COLOR: '1' }, {}] as Record<string, string>[]) {
      server = await fakeOpenAIServer([
        { content: 'x', toolCalls: [{ id: 'c1', name: 'calculator', arguments: { expression: '1+1' } }], usage },
        { content: 'two', usage },
      ]);
      const environment = env(server, extra);
      if (!('NO_COLOR' in extra)) delete environment.NO_COLOR;
      const result = await runCli(['run', 'add'], { env: environment });
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain('\u001b');
      await server.close();
      server = undefined;
    }
  });

  it('.env with export prefixes, quotes and = in values fills only unset keys; its settings are ignored', async () => {
    server = await fakeOpenAIServer([{ content: 'ok', usage }]);
    const dir = tempDir();
    writeFileSync(
      join(dir, '.env'),
      [
        'export OPENAI_API_KEY="sk-from-file=with=equals"',
        `OPENAI_BASE_URL='http://127.0.0.1:9/v1'`,
        '# BRIDLE_MODEL=openai:commented-out',
        'BRIDLE_MODEL=openai:from-file',
      ].join('\r\n'),
    );
    const result = await runCli(['run', '--json', 'hi'], {
      cwd: dir,
      env: cliEnv({ BRIDLE_MODEL: 'openai:from-env', OPENAI_BASE_URL: server.baseURL }),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ model: 'openai:from-env', status: 'completed' });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-from-file=with=equals');
    expect(server.requests[0]?.body).toMatchObject({ model: 'from-env' });
    expect(result.stderr).toContain(`bridle: ignored OPENAI_BASE_URL, BRIDLE_MODEL in ${join(dir, '.env')}`);
  });
});

describe('red team: bridle batch', () => {
  it('an --out that is a folder or below a file is a usage error (exit 2) before any model call', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    writeFileSync(join(dir, 'in.jsonl'), `${JSON.stringify({ id: 'a', prompt: 'item a' })}\n`);
    mkdirSync(join(dir, 'folder'));
    for (const out of ['folder', 'in.jsonl/results.jsonl', 'missing/results.jsonl']) {
      const result = await runCli(['batch', 'in.jsonl', '--out', out], { cwd: dir, env: env(server) });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`bridle: Cannot write the results to ${join(dir, out)}`);
      expect(result.stderr).not.toContain('to run');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a 50 MB line is a bad line with its number; the other lines run', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    const huge = JSON.stringify({ id: 'huge', prompt: `item huge ${'x'.repeat(50 * 1024 * 1024)}` });
    writeFileSync(
      join(dir, 'in.jsonl'),
      [JSON.stringify({ id: 'a', prompt: 'item a' }), huge, JSON.stringify({ id: 'b', prompt: 'item b' })].join('\n'),
    );
    const result = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd: dir, env: env(server) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('in.jsonl:2: skipped: the line is 50.0 MiB long, more than the 8 MiB limit');
    expect(
      resultLines(join(dir, 'out.jsonl'))
        .map((line) => line.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(server.requests).toHaveLength(2);
  }, 60_000);

  it('reads CRLF lines and a BOM; ids with newlines stay one JSON line; duplicates are bad lines', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    const lines = [
      JSON.stringify({ id: 'a', prompt: 'item a' }),
      JSON.stringify({ id: 'x\ny', prompt: 'item newline' }),
      JSON.stringify({ id: 'a', prompt: 'item again' }),
      JSON.stringify({ id: 'c\r', prompt: 'item c' }),
    ];
    writeFileSync(join(dir, 'in.jsonl'), `\uFEFF${lines.join('\r\n')}\r\n`);
    const first = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd: dir, env: env(server) });
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('in.jsonl:3: skipped: duplicate id "a" (first on line 1)');
    const written = readFileSync(join(dir, 'out.jsonl'), 'utf8');
    expect(written.split('\n').filter(Boolean)).toHaveLength(3);
    expect(
      resultLines(join(dir, 'out.jsonl'))
        .map((line) => line.id)
        .sort(),
    ).toEqual(['a', 'c\r', 'x\ny']);
    // Resume: every id (including the odd ones) is recognised as done.
    const again = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd: dir, env: env(server) });
    expect(again.stderr).toContain('0 to run, 3 already in out.jsonl');
    expect(server.requests).toHaveLength(3);
  });

  it('resume after a torn last line reruns exactly that item and keeps the file valid JSONL', async () => {
    server = await fakeOpenAIServer(answerEach());
    const dir = tempDir();
    writeFileSync(
      join(dir, 'in.jsonl'),
      ['a', 'b', 'c'].map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join('\n'),
    );
    writeFileSync(
      join(dir, 'out.jsonl'),
      `${JSON.stringify({ id: 'a', status: 'completed', answer: 'answer a' })}\n{"id":"b","status":"compl`,
    );
    const result = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd: dir, env: env(server) });
    expect(result.code).toBe(0);
    const text = readFileSync(join(dir, 'out.jsonl'), 'utf8');
    const parsed = text
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as { id: string }];
        } catch {
          return [];
        }
      });
    expect(parsed.map((line) => line.id).sort()).toEqual(['a', 'b', 'c']);
    expect(server.requests).toHaveLength(2);
  });

  it('SIGTERM in the middle of a batch loses no item and doubles none after a rerun', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `i${index}`);
    let calls = 0;
    let holding = true;
    const hold: (() => void)[] = [];
    server = await fakeOpenAIServer((request) => {
      calls += 1;
      const answer = answerEach()(request);
      // After five answers, the next calls hang until released (the process is killed meanwhile).
      if (calls <= 5 || !holding) return answer;
      return new Promise((resolve) => hold.push(() => resolve(answer)));
    });
    const dir = tempDir();
    writeFileSync(join(dir, 'in.jsonl'), ids.map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join('\n'));
    const out = join(dir, 'out.jsonl');
    const child = startCli(['batch', 'in.jsonl', '--out', 'out.jsonl', '--concurrency', '2'], {
      cwd: dir,
      env: env(server),
    });
    await until(() => existsSync(out) && resultLines(out).length >= 4 && hold.length >= 1);
    child.child.kill('SIGTERM');
    // SIGTERM stops like Ctrl-C: running items aborted (not recorded), the summary printed, exit 143.
    const stopped = await child.exited;
    expect(stopped.code).toBe(143);
    expect(stopped.stderr).toContain('Interrupted:');
    expect(stopped.stderr).toContain('Run the same command again to resume');
    holding = false;
    for (const release of hold.splice(0)) release();
    const second = await runCli(['batch', 'in.jsonl', '--out', 'out.jsonl'], { cwd: dir, env: env(server) });
    expect(second.code).toBe(0);
    const recorded = resultLines(out).map((line) => line.id);
    expect([...recorded].sort()).toEqual([...ids].sort());
    expect(new Set(recorded).size).toBe(ids.length);
  });
});
