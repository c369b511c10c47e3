import { spawnSync } from 'node:child_process';
import type { Tool } from '@bridle/protocol';
import { ConfigError } from '@bridle/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../src/index';
import { alive, context, fixture, until } from './helpers';

const raw = (...args: string[]) => ({
  name: 'raw',
  command: process.execPath,
  args: [fixture('raw-server.mjs'), ...args],
});
const find = (tools: Tool[], name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('a server that hangs, freezes or dies', () => {
  let connection: McpConnection;
  let tools: Tool[];
  beforeAll(async () => {
    connection = await connectMcp(raw(), { timeoutMs: 8000 });
    tools = await connection.tools();
  });
  afterAll(() => connection.close());

  it('a call that never answers is a tool error naming the server; the live server is kept', async () => {
    const pid = await find(tools, 'raw__pid').execute({}, context());
    await expect(find(tools, 'raw__hang').execute({}, context())).rejects.toThrow(
      'MCP tool "hang" on server "raw" did not answer within 8000 ms',
    );
    // It still answers a ping: the same process serves the next call.
    expect(await find(tools, 'raw__pid').execute({}, context())).toBe(pid);
  });

  it('a frozen server gives a tool error and is restarted on the next call', async () => {
    const pid = Number(await find(tools, 'raw__pid').execute({}, context()));
    await expect(find(tools, 'raw__freeze').execute({}, context())).rejects.toThrow(/did not answer within 8000 ms/);
    const next = Number(await find(tools, 'raw__pid').execute({}, context()));
    expect(next).not.toBe(pid);
    await until(() => !alive(pid));
  });

  it('a server that exits mid-call gives a tool error with its exit code, and is restarted on the next call', async () => {
    const pid = Number(await find(tools, 'raw__pid').execute({}, context()));
    await expect(find(tools, 'raw__exit').execute({}, context())).rejects.toThrow(
      'MCP server "raw" stopped during tool "exit" (its process exited with code 3). It is restarted on the next call.',
    );
    expect(Number(await find(tools, 'raw__pid').execute({}, context()))).not.toBe(pid);
    // The tool list survives the restart.
    expect((await connection.tools()).map((tool) => tool.name)).toContain('raw__echo');
  });

  it('a call cancelled before it starts never reaches the server', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(find(tools, 'raw__echo').execute({ text: 'x' }, context(controller.signal))).rejects.toThrow(
      'MCP tool "echo" on server "raw" was cancelled before it started.',
    );
  });
});

describe('connect failures name the server', () => {
  it('a server that never answers initialize is refused within timeoutMs', async () => {
    const error = await connectMcp(
      { name: 'mute', command: process.execPath, args: [fixture('silent-server.mjs')] },
      { timeoutMs: 1500 },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^MCP server "mute" could not be connected: /);
  });

  it('a command that does not exist', async () => {
    await expect(connectMcp({ name: 'ghost', command: '/no/such/program-xyz' }, { timeoutMs: 5000 })).rejects.toThrow(
      /^MCP server "ghost" could not be connected: .*ENOENT/,
    );
  });

  it('a server that exits at once shows its exit code and stderr, with secrets redacted', async () => {
    const error = (await connectMcp(
      {
        name: 'broken',
        command: process.execPath,
        args: ['-e', 'console.error("bad token " + process.env.API_TOKEN); process.exit(4)'],
        env: { API_TOKEN: 'tok-123456789' },
      },
      { timeoutMs: 10_000 },
    ).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/^MCP server "broken" could not be connected: /);
    expect(error.message).toContain('exited with code 4');
    expect(error.message).toContain('bad token [redacted]');
    expect(error.message).not.toContain('tok-123456789');
  });

  it('a server that dies starting shows the first lines of its stderr, not its last brace', async () => {
    const missing = (await connectMcp(
      { name: 'notes', command: process.execPath, args: [fixture('no-such-server.mjs')] },
      { timeoutMs: 10_000 },
    ).catch((caught: unknown) => caught)) as Error;
    expect(missing.message).toMatch(
      /^MCP server "notes" could not be connected: Connection closed \(its process exited with code 1; its stderr: node:internal\/modules\/[^|]+ \| Error: Cannot find module '.*no-such-server\.mjs'\)$/,
    );
    const thrown = (await connectMcp(
      { name: 'github', command: process.execPath, args: ['-e', 'throw new Error("GITHUB_TOKEN is not set")'] },
      { timeoutMs: 10_000 },
    ).catch((caught: unknown) => caught)) as Error;
    expect(thrown.message).toBe(
      'MCP server "github" could not be connected: Connection closed (its process exited with code 1; its stderr: [eval]:1 | throw new Error("GITHUB_TOKEN is not set") | Error: GITHUB_TOKEN is not set)',
    );
  });

  it('bad shapes are ConfigErrors naming the server', async () => {
    await expect(connectMcp({ name: 'x', command: '' })).rejects.toThrow(ConfigError);
    await expect(connectMcp({ name: 'x', command: '' })).rejects.toThrow(
      'MCP server "x": "command" must be a non-empty string',
    );
    await expect(connectMcp({ name: 'web', url: 'ftp://example.test/mcp' })).rejects.toThrow(
      'MCP server "web": "url" must start with http:// or https://, got ftp:.',
    );
    await expect(connectMcp({ name: 'web', url: 'not a url' })).rejects.toThrow(
      'MCP server "web": "url" is not a valid URL',
    );
    await expect(connectMcp({ name: 'both', command: 'a', url: 'http://x' } as never)).rejects.toThrow(
      'MCP server "both" needs exactly one of "command"',
    );
    await expect(connectMcp({ name: 'e', command: 'a', env: { KEY: 5 } } as never)).rejects.toThrow(
      'MCP server "e": "env.KEY" must be a string.',
    );
    await expect(connectMcp(raw(), { timeoutMs: 0 })).rejects.toThrow('timeoutMs must be a positive integer');
    await expect(connectMcp(raw(), { trust: 'some' as never })).rejects.toThrow(
      'trust must be "annotations", "all" or "none"',
    );
  });
});

describe('garbage on stdout', () => {
  it('lines that are not JSON are skipped with one warning; the tools work', async () => {
    const warnings: string[] = [];
    const connection = await connectMcp(raw('--garbage'), {
      timeoutMs: 10_000,
      onWarning: (line) => warnings.push(line),
    });
    try {
      const tools = await connection.tools();
      expect(await find(tools, 'raw__echo').execute({ text: 'still fine' }, context())).toBe('still fine');
      expect(warnings).toEqual([
        'MCP server "raw" wrote a line that is not JSON-RPC to stdout (skipped; a server should log to stderr): raw server starting (not JSON)',
      ]);
    } finally {
      await connection.close();
    }
  });
});

describe('process groups', () => {
  it('close() kills the server and everything it started', async () => {
    const connection = await connectMcp(
      { name: 'v1', command: process.execPath, args: [fixture('v1-server.mjs')] },
      { timeoutMs: 30_000 },
    );
    const tools = await connection.tools();
    const pid = Number(await find(tools, 'v1__pid').execute({}, context()));
    const grandchild = Number(await find(tools, 'v1__grandchild').execute({}, context()));
    expect(alive(grandchild)).toBe(true);
    await connection.close();
    await until(() => !alive(pid) && !alive(grandchild));
    await connection.close();
    await expect(find(tools, 'v1__pid').execute({}, context())).rejects.toThrow('MCP server "v1" is closed');
  });

  it("the owner's exit kills the server's whole process group", async () => {
    const result = spawnSync(
      process.execPath,
      ['--conditions=@bridle/source', '--import', 'tsx', fixture('owner.mts')],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(result.status).toBe(0);
    const { server, grandchild } = JSON.parse(result.stdout.trim().split('\n').at(-1) as string);
    expect(server).toBeGreaterThan(0);
    expect(grandchild).toBeGreaterThan(0);
    // The 'exit' hook sent SIGKILL to the group before the owner exited. The kernel delivers it asynchronously
    // (on a loaded machine a killed process can still be seen running for a moment), so wait for both to go;
    // without the hook they would live on and this would time out.
    await until(() => !alive(server) && !alive(grandchild));
    expect([alive(server), alive(grandchild)]).toEqual([false, false]);
  });
});

describe('name collisions', () => {
  it('two tools with one Bridle name are a ConfigError naming both', async () => {
    const connection = await connectMcp(
      { name: 'v1', command: process.execPath, args: [fixture('v1-server.mjs'), '--collide'] },
      { timeoutMs: 30_000, onWarning: () => undefined },
    );
    try {
      const error = await connection.tools().catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(
        'MCP server "v1" has two tools that both become "v1__a_b": "a.b" and "a_b".',
      );
    } finally {
      await connection.close();
    }
  });
});
