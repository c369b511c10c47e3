import type { Tool } from '@bridle/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../src/index';
import { context, fixture, until } from './helpers';

const find = (tools: Tool[], name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('a server on the v2 SDK', () => {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await connectMcp(
      { name: 'v2', command: process.execPath, args: [fixture('v2-server.mjs')] },
      { timeoutMs: 30_000, onWarning: () => undefined },
    );
  });
  afterAll(() => connection.close());

  it('lists and calls its tools', async () => {
    const tools = await connection.tools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['v2__add_tool', 'v2__echo']);
    expect(find(tools, 'v2__echo').readOnly).toBe(true);
    expect(await find(tools, 'v2__echo').execute({ text: 'modern' }, context())).toBe('modern');
  });

  it('invalid arguments are refused by the server as a tool error', async () => {
    const tools = await connection.tools();
    await expect(find(tools, 'v2__echo').execute({ text: 5 }, context())).rejects.toThrow(/text|string|Invalid/i);
  });

  it('a tool added later shows up after the server says the list changed', async () => {
    const tools = await connection.tools();
    await find(tools, 'v2__add_tool').execute({}, context());
    let latest = tools;
    await until(() => {
      void connection.tools().then((list) => {
        latest = list;
      });
      return latest.some((tool) => tool.name === 'v2__late');
    });
    expect(await find(latest, 'v2__late').execute({}, context())).toBe('late');
  });
});
