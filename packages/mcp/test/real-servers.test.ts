import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@bridle/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection, type McpProgress } from '../src/index';
import { context, serverPackage } from './helpers';

const everything = serverPackage('@modelcontextprotocol/server-everything');
const find = (tools: Tool[], name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};
const quiet = { timeoutMs: 30_000, onWarning: () => undefined };

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts server-everything on an HTTP transport and resolves once it listens. */
async function startHttpEverything(mode: 'streamableHttp' | 'sse'): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening|running/i.test(seen)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything ${mode} exited with ${code}: ${seen}`)));
  });
  return { url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`, child };
}

describe('server-everything over stdio', () => {
  const SECRET = 'everything-secret-4242';
  const progress: McpProgress[] = [];
  let connection: McpConnection;
  let tools: Tool[];
  beforeAll(async () => {
    connection = await connectMcp(
      { name: 'everything', command: process.execPath, args: [everything, 'stdio'], env: { MY_SECRET: SECRET } },
      { ...quiet, onProgress: (event) => progress.push(event) },
    );
    tools = await connection.tools();
  });
  afterAll(() => connection.close());

  it('lists its tools with their annotations', () => {
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image']),
    );
    expect(find(tools, 'everything__echo').readOnly).toBe(true);
    expect(find(tools, 'everything__toggle-simulated-logging').requiresApproval).toBe(true);
  });

  it('echo, get-sum, a tiny image and structured content', async () => {
    expect(await find(tools, 'everything__echo').execute({ message: 'hi' }, context())).toBe('Echo: hi');
    expect(await find(tools, 'everything__get-sum').execute({ a: 2, b: 40 }, context())).toMatch(/42/);
    expect(await find(tools, 'everything__get-tiny-image').execute({}, context())).toMatch(
      /\[image image\/png, \d+ (B|KB)\]/,
    );
    const structured = (await find(tools, 'everything__get-structured-content').execute(
      { location: 'New York' },
      context(),
    )) as string;
    expect(JSON.parse(structured.split('\n').at(-1) as string)).toHaveProperty('temperature');
  });

  it('progress of a long-running operation', async () => {
    const result = await find(tools, 'everything__trigger-long-running-operation').execute(
      { duration: 0.3, steps: 3 },
      context(),
    );
    expect(result).toMatch(/completed/i);
    expect(progress.map((event) => [event.progress, event.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it('get-env shows the environment with the configured secret redacted', async () => {
    const result = (await find(tools, 'everything__get-env').execute({}, context())) as string;
    expect(result).toContain('MY_SECRET');
    expect(result).not.toContain(SECRET);
    expect(result).toContain('[redacted]');
    // Only the safe default variables and the configured ones reach the server.
    expect(result).not.toContain('VITEST');
  });
});

describe('server-everything over HTTP', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('Streamable HTTP', async () => {
    const { url, child } = await startHttpEverything('streamableHttp');
    children.push(child);
    const connection = await connectMcp({ name: 'remote', url, headers: { 'X-Api-Key': 'remote-key-99999' } }, quiet);
    try {
      const tools = await connection.tools();
      expect(await find(tools, 'remote__echo').execute({ message: 'over http' }, context())).toBe('Echo: over http');
    } finally {
      await connection.close();
    }
  });

  it('an SSE-only server, with type "sse" and through the fallback without a type', async () => {
    const { url, child } = await startHttpEverything('sse');
    children.push(child);
    for (const server of [
      { name: 'old', type: 'sse' as const, url },
      { name: 'old', url },
    ]) {
      const connection = await connectMcp(server, quiet);
      try {
        const tools = await connection.tools();
        expect(await find(tools, 'old__echo').execute({ message: 'over sse' }, context())).toBe('Echo: over sse');
      } finally {
        await connection.close();
      }
    }
  });

  it('an unreachable URL is an error naming the server, without the header secrets', async () => {
    const port = await freePort();
    const error = (await connectMcp(
      { name: 'down', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer top-secret-token' } },
      { timeoutMs: 10_000 },
    ).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(/^MCP server "down" could not be connected: /);
    expect(error.message).not.toContain('top-secret-token');
  });
});

describe('server-filesystem and server-memory', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-mcp-fs-'));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'remember the milk\n');

  it('server-filesystem reads inside its folder, refuses outside it, and its write tools need approval', async () => {
    const connection = await connectMcp(
      {
        name: 'files',
        command: process.execPath,
        args: [serverPackage('@modelcontextprotocol/server-filesystem'), dir],
      },
      quiet,
    );
    try {
      const tools = await connection.tools();
      expect([
        find(tools, 'files__read_text_file').readOnly,
        find(tools, 'files__write_file').requiresApproval,
      ]).toEqual([true, true]);
      const read = find(tools, 'files__read_text_file');
      // Text parts, then structuredContent as JSON.
      expect(await read.execute({ path: path.join(dir, 'notes.txt') }, context())).toBe(
        'remember the milk\n\n{"content":"remember the milk\\n"}',
      );
      await expect(read.execute({ path: path.join(dir, '..', 'etc-passwd') }, context())).rejects.toThrow(
        /outside allowed directories|Access denied/i,
      );
    } finally {
      await connection.close();
    }
  });

  it('server-memory keeps a knowledge graph', async () => {
    const connection = await connectMcp(
      {
        name: 'memory',
        command: process.execPath,
        args: [serverPackage('@modelcontextprotocol/server-memory')],
        env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
      },
      quiet,
    );
    try {
      const tools = await connection.tools();
      await find(tools, 'memory__create_entities').execute(
        { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
        context(),
      );
      const graph = (await find(tools, 'memory__read_graph').execute({}, context())) as string;
      expect(graph).toContain('wrote the first program');
    } finally {
      await connection.close();
    }
  });
});
