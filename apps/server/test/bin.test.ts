import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fakeOpenAIServer } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from './helpers';
import { serverBinArgs } from './server-processes';

const root = fileURLToPath(new URL('..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** A TCP port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the built `bridle-server` as a real process; resolves with its URL once it listens. */
function startBin(env: Record<string, string>) {
  const child = spawn(process.execPath, serverBinArgs(), {
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

// Each case starts a real process: slow on a loaded machine, hence the longer timeout.
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
      // Handled here too: if the wait below fails, the request fails later with the killed server.
      answer.catch(() => {});
      // A fresh process on a busy machine may take seconds to make its first model call.
      await expect.poll(() => fake.requests.length, { timeout: 20_000 }).toBe(1);
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

  it('with BRIDLE_REDIS_URL refuses a memory: store, exiting 2 naming BRIDLE_STORE', async () => {
    const server = startBin({ BRIDLE_REDIS_URL: 'redis://127.0.0.1:6379', BRIDLE_MODEL: 'test:echo' });
    await expect(server.url).rejects.toThrow(/BRIDLE_REDIS_URL is set, but the store is memory: .*Set BRIDLE_STORE/);
    expect(await server.exited).toBe(2);
  });

  it('exits 2 when the port is taken, naming the port and how to change it', async () => {
    const holder = createNetServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const server = startBin({ PORT: String(port), BRIDLE_MODEL: 'test:echo' });
      await expect(server.url).rejects.toThrow(
        `bridle-server: Cannot listen: port ${port} on 127.0.0.1 is already in use (another bridle-server, or another program, listens there). Set PORT to another port (PORT=0 takes any free one), or stop the program that holds it.\n`,
      );
      expect(await server.exited).toBe(2);
      expect(server.output()).not.toContain('    at ');
    } finally {
      holder.close();
    }
  });

  it('exits 2 with a clear error when the Redis of BRIDLE_REDIS_URL cannot be reached at start', async () => {
    const port = await closedPort();
    const folder = await mkdtemp(join(tmpdir(), 'bridle-server-bin-'));
    const server = startBin({
      BRIDLE_REDIS_URL: `redis://:secret@127.0.0.1:${port}`,
      BRIDLE_STORE: `sqlite:${join(folder, 'bridle.db')}`,
      BRIDLE_MODEL: 'test:echo',
    });
    await expect(server.url).rejects.toThrow(`bridle-server: Cannot reach Redis at redis://:***@127.0.0.1:${port}`);
    expect(await server.exited).toBe(2);
    expect(server.output()).not.toContain('secret');
  });
});
