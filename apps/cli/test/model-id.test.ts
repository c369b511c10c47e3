import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a model id written in a .env file', () => {
  it('unquoted with #model: the error names the .env comment cause and both fixes; the short form works', async () => {
    server = await fakeOpenAIServer([
      { content: 'From the local server.', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    const cwd = tempDir();
    writeFileSync(join(cwd, 'broken.env'), `BRIDLE_MODEL=openai-compatible:${server.baseURL}#fake-model\n`);
    const broken = await runCli(['run', 'hi', '--env-file', 'broken.env'], { cwd, env: cliEnv() });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('"#" starts a comment and cuts the model name off');
    expect(broken.stderr).toContain(`quote the value (BRIDLE_MODEL="openai-compatible:${server.baseURL}#<model>")`);
    expect(broken.stderr).toContain(
      `or set OPENAI_COMPATIBLE_BASE_URL=${server.baseURL} and BRIDLE_MODEL=openai-compatible:<model>`,
    );

    writeFileSync(
      join(cwd, 'good.env'),
      `OPENAI_COMPATIBLE_BASE_URL=${server.baseURL}\nBRIDLE_MODEL=openai-compatible:fake-model\n`,
    );
    const good = await runCli(['run', 'hi', '--env-file', 'good.env'], { cwd, env: cliEnv() });
    expect(good.code).toBe(0);
    expect(good.stdout).toBe('From the local server.\n');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });
});
