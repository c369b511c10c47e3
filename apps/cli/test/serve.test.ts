import { type AddressInfo, createServer } from 'node:net';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, requireBuild, runCli, startCli, tempDir } from './cli-process';

beforeAll(requireBuild);

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const env = (fake: FakeProviderServer) =>
  cliEnv({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    BRIDLE_MODEL: 'openai:fake-model',
    LOG_LEVEL: 'silent',
  });

describe('bridle serve', () => {
  it('starts the HTTP server with the flags, answers, and stops gracefully on SIGTERM', async () => {
    server = await fakeOpenAIServer([{ content: 'Served.', usage: { inputTokens: 1, outputTokens: 1 } }]);
    const serve = startCli(['serve', '--port', '0', '--max-concurrent-runs', '2'], { env: env(server) });
    await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 'stderr');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.stderr())?.[1] as string;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hi' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ answer: 'Served.', status: 'completed' });
    serve.child.kill('SIGTERM');
    const result = await serve.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('shutting down');
  });

  it('exits 2 when the settings are refused (a public host without a token)', async () => {
    server = await fakeOpenAIServer([]);
    const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], { env: env(server) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('without an API token');
  });

  it('exits 2 when the port is taken, naming the port and how to change it', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      server = await fakeOpenAIServer([]);
      const result = await runCli(['serve', '--port', String(port)], { env: env(server) });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `bridle: Cannot listen: port ${port} on 127.0.0.1 is already in use (another bridle serve, or another program, listens there). Pick another port with --port N (or PORT=N in your shell; --port 0 takes any free one)`,
      );
      expect(result.stderr).not.toContain('    at ');
    } finally {
      holder.close();
    }
  });

  it('exits 2 on a bad port', async () => {
    const result = await runCli(['serve', '--port', 'http']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--port <port>' argument 'http' is invalid");
  });

  it('--store, --workspace and --max-cost win over BRIDLE_STORE, BRIDLE_WORKSPACE and BRIDLE_MAX_COST_USD', async () => {
    server = await fakeOpenAIServer([{ content: 'Flagged.', usage: { inputTokens: 1, outputTokens: 1 } }]);
    const folder = tempDir('bridle-serve-workspace-');
    const serve = startCli(['serve', '--port', '0', '--store', 'memory:', '-w', folder, '--max-cost', '0.5'], {
      env: {
        ...env(server),
        // Each of these alone would stop the server from starting.
        BRIDLE_STORE: 'sqlite:/dev/null/nowhere/bridle.db',
        BRIDLE_WORKSPACE: '/',
        BRIDLE_MAX_COST_USD: 'lots',
      },
    });
    await serve.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 'stderr');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serve.stderr())?.[1] as string;
    const models = (await (await fetch(`${url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain('bridle:coding');
    const response = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hi', skill: 'assistant' }),
    });
    expect(await response.json()).toMatchObject({ answer: 'Flagged.', status: 'completed' });
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
  });

  it('exits 2 on a --max-cost that is not a positive amount', async () => {
    const result = await runCli(['serve', '--max-cost', 'lots']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--max-cost <usd>' argument 'lots' is invalid");
  });
});
