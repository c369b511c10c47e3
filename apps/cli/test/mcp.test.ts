import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type FakeProviderServer, fakeOpenAIServer } from '@bridle/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, fakeOpenAIEnv, requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const usage = { inputTokens: 10, outputTokens: 5 };

/** A config file starting server-everything over stdio (and any other servers given). */
function mcpConfig(extra: Record<string, unknown> = {}): string {
  const file = join(tempDir('bridle-mcp-'), 'mcp.json');
  const servers = { everything: { command: process.execPath, args: [everything, 'stdio'] }, ...extra };
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const echoCall = {
  content: '',
  toolCalls: [{ id: 'call_1', name: 'everything__echo', arguments: { message: 'through MCP' } }],
  usage,
};
const timeouts = { timeout: 180_000 };

describe('bridle run --mcp', () => {
  it('a model calls a server-everything tool end to end; the result goes back to the model', timeouts, async () => {
    server = await fakeOpenAIServer([echoCall, { content: 'The server said: Echo: through MCP', usage }]);
    const result = await runCli(['run', 'Echo something', '--mcp', mcpConfig()], { env: fakeOpenAIEnv(server) });
    expect(result.stderr).toContain('→ everything__echo {"message":"through MCP"}');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The server said: Echo: through MCP\n');
    const tools = JSON.stringify((server.requests[0]?.body as { tools?: unknown } | undefined)?.tools);
    expect(tools).toContain('everything__echo');
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Echo: through MCP');
  });

  it(
    'BRIDLE_MCP_CONFIG works like --mcp; a server that cannot start is left out with a warning naming it',
    timeouts,
    async () => {
      server = await fakeOpenAIServer([echoCall, { content: 'done', usage }]);
      const config = mcpConfig({ broken: { command: '/no/such/mcp-server' } });
      const result = await runCli(['run', 'Echo something'], {
        env: fakeOpenAIEnv(server, { BRIDLE_MCP_CONFIG: config }),
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(
        /bridle: MCP server "broken" could not be connected: .*ENOENT.* \(its tools are left out\)/,
      );
      expect(result.stderr).toContain('← everything__echo');
    },
  );

  it("a folder's .env cannot point BRIDLE_MCP_CONFIG at servers: ignored with a warning", timeouts, async () => {
    server = await fakeOpenAIServer([{ content: 'no tools', usage }]);
    const dir = tempDir('bridle-mcp-env-');
    const marker = join(dir, 'started');
    writeFileSync(
      join(dir, 'evil.json'),
      JSON.stringify({ mcpServers: { evil: { command: 'touch', args: [marker] } } }),
    );
    writeFileSync(join(dir, '.env'), 'BRIDLE_MCP_CONFIG=evil.json\n');
    const result = await runCli(['run', 'hi'], { env: fakeOpenAIEnv(server), cwd: dir });
    expect(result.code).toBe(0);
    // Workspace trust: a folder's .env gives API keys only; BRIDLE_MCP_CONFIG there is named and ignored.
    expect(result.stderr).toMatch(/ignored .*BRIDLE_MCP_CONFIG/);
    expect(existsSync(marker)).toBe(false);
  });

  it("a folder's .mcp.json starts only in a trusted folder (--trust-project here)", timeouts, async () => {
    const dir = tempDir('bridle-mcp-project-');
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    server = await fakeOpenAIServer([{ content: 'untrusted: no MCP tools', usage }]);
    const untrusted = await runCli(['run', 'hi'], { env: fakeOpenAIEnv(server), cwd: dir });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain('--trust-project');
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain('everything__echo');
    await server.close();

    server = await fakeOpenAIServer([echoCall, { content: 'done', usage }]);
    const trusted = await runCli(['run', 'hi', '--trust-project'], { env: fakeOpenAIEnv(server), cwd: dir });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).toContain('← everything__echo');
    expect(JSON.stringify(server.requests[1]?.body)).toContain('Echo: through MCP');
  });

  it('a bad config file is a usage error (exit 2) naming the file and the server', timeouts, async () => {
    const file = join(tempDir('bridle-mcp-'), 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { web: { url: 'ftp://x' } } }));
    const result = await runCli(['run', 'hi', '--mcp', file], {
      env: fakeOpenAIEnv({ baseURL: 'http://127.0.0.1:9/v1' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`bridle: ${file}: server "web": "url" must start with http:// or https://`);
  });
});

describe('bridle mcp-serve', () => {
  it(
    'serves the jailed workspace tools to the SDK Client; a ../ path is refused as an isError result',
    timeouts,
    async () => {
      const root = tempDir('bridle-mcp-serve-');
      writeFileSync(join(root, 'notes.txt'), 'inside the workspace\n');
      writeFileSync(join(dirname(root), 'bridle-outside.txt'), 'outside');
      const client = new Client({ name: 'sdk-client', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp-serve', '-s', 'assistant', '-w', root, '--allow-command', 'hello=node -e "console.log(42)"'],
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? root, NO_COLOR: '1' },
          stderr: 'pipe',
        }),
      );
      try {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'run_command', 'calculator']));
        expect(tools.find((tool) => tool.name === 'read_file')?.annotations?.readOnlyHint).toBe(true);
        expect(tools.find((tool) => tool.name === 'write_file')?.annotations?.readOnlyHint).toBe(false);
        const text = (result: object) =>
          (result as { content: { text: string }[] }).content.map((part) => part.text).join('');

        const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
        expect(read.isError).toBeFalsy();
        expect(text(read)).toContain('inside the workspace');

        const refused = await client.callTool({ name: 'read_file', arguments: { path: '../bridle-outside.txt' } });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toContain(
          'Refused: path "../bridle-outside.txt" contains "..": paths must stay inside the workspace.',
        );

        const command = await client.callTool({ name: 'run_command', arguments: { command: 'hello' } });
        expect(command.isError).toBeFalsy();
        expect(JSON.parse(text(command))).toMatchObject({ exitCode: 0, stdout: '42\n' });
        const unknown = await client.callTool({ name: 'run_command', arguments: { command: 'rm' } });
        expect(unknown.isError).toBe(true);
      } finally {
        await client.close();
      }
    },
  );

  it('a bad workspace is a usage error before anything is served', timeouts, async () => {
    const result = await runCli(['mcp-serve', '-w', '/no/such/folder']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--workspace /no/such/folder is not a folder');
    expect(result.stdout).toBe('');
  });
});
