import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import type { Tool } from '@bridle/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../src/index';
import { context, fixture } from './helpers';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const children = new Set<ChildProcess>();

/** Starts the restartable HTTP server on `port` and resolves once it listens. */
async function start(port: number, era: 'legacy' | 'modern'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture('http-server.mjs'), '--port', String(port), '--era', era], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the ${era} server exited with ${code}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
}

const whoami = (tools: Tool[]) => tools[0]?.execute({}, context()) as Promise<string>;

afterEach(async () => {
  for (const child of children) await stop(child);
});

describe.each(['legacy', 'modern'] as const)('Streamable HTTP, %s era: the server restarts', (era) => {
  let connection: McpConnection | undefined;
  afterEach(async () => {
    await connection?.close();
  });

  async function connect(port: number, warnings: string[] = []) {
    connection = await connectMcp(
      { name: 'remote', type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      { timeoutMs: 5000, onWarning: (message) => warnings.push(message) },
    );
    return connection.tools();
  }

  it('calls while it is down fail naming the server, tools() keeps listing, and the next call reconnects', async () => {
    const port = await freePort();
    const first = await start(port, era);
    const warnings: string[] = [];
    const tools = await connect(port, warnings);
    const before = await whoami(tools);
    expect(before).toBe(`pid:${first.pid}`);
    await stop(first);

    await expect(whoami(tools)).rejects.toThrow(
      `MCP server "remote" could not be reached while calling tool "whoami" (fetch failed: connect ECONNREFUSED 127.0.0.1:${port}). It is tried again on the next call.`,
    );
    expect((await connection?.tools())?.map((tool) => tool.name)).toEqual(['remote__whoami']);
    await expect(whoami(tools)).rejects.toThrow(
      /^MCP server "remote" could not be connected: .*ECONNREFUSED|fetch failed/,
    );

    const second = await start(port, era);
    expect(await whoami(tools)).toBe(`pid:${second.pid}`);
    expect(await whoami(tools)).toBe(`pid:${second.pid}`);
    expect((await connection?.tools())?.map((tool) => tool.name)).toEqual(['remote__whoami']);
  });

  it('a restart between two calls: the next call gets its answer on a new session', async () => {
    const port = await freePort();
    const first = await start(port, era);
    const tools = await connect(port);
    expect(await whoami(tools)).toBe(`pid:${first.pid}`);
    await stop(first);
    const second = await start(port, era);
    expect(await whoami(tools)).toBe(`pid:${second.pid}`);
  });

  it("the run's cancellation ends a call that waits for the server to be checked", async () => {
    const port = await freePort();
    const first = await start(port, era);
    const tools = await connect(port);
    await stop(first);
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      await expect(whoami(tools)).rejects.toThrow('did not answer within 5000 ms');
      // The next call pings the server first (for up to 2500 ms): it is cancelled at 100 ms.
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(tools[0]?.execute({}, context(controller.signal))).rejects.toThrow(
        'MCP server "remote": the call was cancelled while it reconnected',
      );
    } finally {
      silent.close();
    }
  });

  it('a server that accepts connections but never answers: the call fails within its timeout, naming the server', async () => {
    const port = await freePort();
    const first = await start(port, era);
    const tools = await connect(port);
    expect(await whoami(tools)).toBe(`pid:${first.pid}`);
    await stop(first);
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      await expect(whoami(tools)).rejects.toThrow(
        'MCP tool "whoami" on server "remote" did not answer within 5000 ms.',
      );
      // Checking the server (a ping, then a new handshake) is bounded by the same 5000 ms.
      await expect(whoami(tools)).rejects.toThrow(
        /^MCP server "remote" (did not answer within 5000 ms|could not be connected: .*timed out.*) \(while calling tool "whoami"; it is tried again on the next call\)$/,
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    const second = await start(port, era);
    expect(await whoami(tools)).toBe(`pid:${second.pid}`);
  });
});
