// Issue 36 item 11: `bridle ... --env-file <file>` run as the installed command (the bin file executed, as npm
// links it): a missing file is Bridle's usage error (exit 2, naming the file), never Node's own exit 9.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild, tempDir } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Executes the bin file itself (its first line chooses the interpreter), as a shell runs `bridle`. */
function runBin(args: string[], options: { cwd: string; env: Record<string, string> }) {
  const child = spawn(BIN, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('--env-file through the installed bridle command', { timeout: 60_000 }, () => {
  it('a missing file exits 2 with a line naming it, in both spellings', async () => {
    const cwd = tempDir();
    for (const args of [
      ['run', 'hi', '--env-file', 'missing.env'],
      ['run', 'hi', '--env-file=missing.env'],
    ]) {
      const result = await runBin(args, { cwd, env: cliEnv() });
      expect(result.stderr).toBe(
        `bridle: Cannot read the --env-file ${join(cwd, 'missing.env')}: no such file. Give the path of an existing .env file.\n`,
      );
      expect(result.code).toBe(2);
    }
    // Run by node itself, as the root README's `node apps/cli/dist/bin.js <command>`: with `--` first.
    const child = spawn(process.execPath, [BIN, '--', 'run', 'hi', '--env-file', 'missing.env'], {
      cwd,
      env: cliEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toContain(`Cannot read the --env-file ${join(cwd, 'missing.env')}: no such file.`);
  });

  it('an existing file is loaded, and arguments after it reach the command unchanged', async () => {
    server = await fakeOpenAIServer([{ content: 'From the env file.', usage: { inputTokens: 1, outputTokens: 1 } }]);
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'my.env'),
      `OPENAI_API_KEY=sk-test\nOPENAI_BASE_URL=${server.baseURL}\nBRIDLE_MODEL=openai:fake-model\n`,
    );
    const result = await runBin(['run', 'a "quoted" $prompt -- with dashes', '--env-file', 'my.env'], {
      cwd,
      env: cliEnv(),
    });
    expect(result.stdout).toBe('From the env file.\n');
    expect(result.code).toBe(0);
    expect(JSON.stringify(server.requests[0]?.body)).toContain('a \\"quoted\\" $prompt -- with dashes');
  });
});
