import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fakeOpenAIServer } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from './helpers';

const root = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts `bridle-server` from source as a real process; resolves with its URL once it listens. */
function startBin(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=@bridle/source', '--import', 'tsx', 'src/bin.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', BRIDLE_STORE: 'memory:', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      const match = /bridle-server listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) resolve(match[1] as string);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`bridle-server exited early:\n${output}`)));
  });
  return { child, url, exited, output: () => output };
}

// Each case starts a real process through tsx: slow on a loaded machine, hence the longer timeout.
describe('bridle-server (the bin)', { timeout: 60_000 }, () => {
  it('on SIGTERM lets the grace period pass, aborts the running run, answers its client and exits 0', async () => {
    const fake = await fakeOpenAIServer([{ type: 'hang' }]);
    try {
      const server = startBin({
        BRIDLE_MODEL: 'openai:fake-model',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: fake.baseURL,
        BRIDLE_SHUTDOWN_GRACE_MS: '200',
      });
      const url = await server.url;
      const answer = postJson(`${url}/api/chat`, { prompt: 'never answered' });
      await expect.poll(() => fake.requests.length).toBe(1);
      server.child.kill('SIGTERM');
      const { status, body } = await answer;
      expect(status).toBe(200);
      expect(body.status).toBe('aborted');
      expect(await server.exited).toBe(0);
      expect(server.output()).toContain('"msg":"shutdown grace period over: aborting running work"');
    } finally {
      await fake.close();
    }
  });

  it('refuses a public host without a token, exiting 2 with the reason', async () => {
    const server = startBin({ HOST: '0.0.0.0' });
    await expect(server.url).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0 without an API token/);
    expect(await server.exited).toBe(2);
  });
});
