// Issue 36 item 12: what `bridle batch` shows on a terminal (a real pseudo-terminal through script(1)).
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderRequest, type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, tempDir, until } from './cli-process';

beforeAll(requireBuild);

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasScript) console.warn('!!! SKIPPED: the batch terminal test needs `script` (util-linux) for a pseudo-terminal');

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = { inputTokens: 10, outputTokens: 5 };

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing terminal escape sequences is the point.
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]/g;

/** The bar frames in what the terminal received, escape sequences removed, in order. */
function frames(screen: string): string[] {
  return screen
    .replace(ESCAPES, '\n')
    .split(/[\r\n]/)
    .filter((line) => line.includes(' done · '))
    .map((line) => line.replace(/^[█░]+ /, '').trim());
}

describe.skipIf(!hasScript)('bridle batch on a terminal', { timeout: 120_000 }, () => {
  it('after Ctrl-C the last frame counts the items that finished and names the rest, above the summary', async () => {
    // Items a, b, c answer; d, e, f never do (until Ctrl-C).
    server = await fakeOpenAIServer((request: FakeProviderRequest) =>
      /item [abc]/.test(JSON.stringify(request.body)) ? { content: 'done', usage } : { type: 'hang' },
    );
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'in.jsonl'),
      `${['a', 'b', 'c', 'd', 'e', 'f'].map((id) => JSON.stringify({ id, prompt: `item ${id}` })).join('\n')}\n`,
    );
    const command = [process.execPath, BIN, 'batch', 'in.jsonl', '--out', 'out.jsonl', '--concurrency', '2']
      .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd,
      env: { ...fakeOpenAIEnv(server), TERM: 'xterm', COLUMNS: '120' },
      stdio: 'pipe',
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(() => frames(screen).some((frame) => frame.startsWith('3/6 done')));
    // Both slots now hang on d and e: Ctrl-C, as a person would type it.
    await until(() => server !== undefined && server.requests.length >= 5);
    child.stdin.write('\u0003');
    expect(await exited).toBe(130);
    const beforeSummary = screen.slice(0, screen.indexOf('Interrupted:'));
    expect(frames(beforeSummary).at(-1)).toMatch(/^3\/6 done · 0 failed · 3 not finished · [\d.]+\/s$/);
    expect(screen).not.toContain('6/6 done');
    expect(screen).toMatch(/Interrupted: 3 completed · 0 failed · 3 not finished/);
  });
});
