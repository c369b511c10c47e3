import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tool } from '@bridle/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection, type McpProgress } from '../src/index';
import { context, fixture, until } from './helpers';

const SECRET = 'sk-live-0123456789abcdef';
const find = (tools: Tool[], name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('a server on the v1 SDK', () => {
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-mcp-')), 'record.txt');
  const warnings: string[] = [];
  const progress: McpProgress[] = [];
  let connection: McpConnection;
  let tools: Tool[];
  beforeAll(async () => {
    connection = await connectMcp(
      {
        name: 'v1',
        command: process.execPath,
        args: [fixture('v1-server.mjs'), '--record', record, '--long'],
        env: { SECRET_TOKEN: SECRET },
      },
      { timeoutMs: 30_000, onWarning: (line) => warnings.push(line), onProgress: (event) => progress.push(event) },
    );
    tools = await connection.tools();
  });
  afterAll(() => connection.close());

  it('lists tools as <server>__<tool> with the schema, description and annotations mapped', () => {
    const echo = find(tools, 'v1__echo');
    expect(echo.description).toBe('Echoes the text back');
    expect(echo.parameters).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect([echo.readOnly, echo.requiresApproval]).toEqual([true, false]);
    const add = find(tools, 'v1__add');
    expect([add.readOnly, add.requiresApproval]).toEqual([false, true]);
  });

  it('skips a tool whose schema does not compile, with one warning, and keeps the others', () => {
    expect(tools.some((tool) => tool.name === 'v1__bad_schema')).toBe(false);
    expect(warnings.filter((line) => line.includes('bad_schema'))).toHaveLength(1);
    expect(warnings.find((line) => line.includes('bad_schema'))).toMatch(
      /^MCP server "v1": tool "bad_schema" is skipped: Tool "v1__bad_schema": parameters is not a valid JSON Schema/,
    );
  });

  it('cuts a long name to 64 characters with a hash; the server gets its own name', async () => {
    const long = tools.find((tool) => tool.name.startsWith('v1__long_'));
    expect(long?.name).toHaveLength(64);
    expect(long?.name).toMatch(/^v1__long_n+_[0-9a-f]{8}$/);
    expect(await long?.execute({}, context())).toBe(`I am long_${'n'.repeat(60)}_end`);
  });

  it('joins text, describes other parts and adds structuredContent as JSON', async () => {
    expect(await find(tools, 'v1__echo').execute({ text: 'hello' }, context())).toBe('hello');
    expect(await find(tools, 'v1__add').execute({ a: 2, b: 3 }, context())).toBe('{"sum":5}');
    expect(await find(tools, 'v1__picture').execute({}, context())).toBe(
      [
        'Here is the picture.',
        '[image image/png, 12 KB]',
        '[resource link file:///pictures/cat.png (cat.png, image/png)]',
        '[audio audio/wav, 3 KB]',
        '[resource file:///notes.txt text/plain, 5 B]',
        '{"width":64,"height":48}',
      ].join('\n'),
    );
  });

  it('isError becomes a thrown tool error with the server text', async () => {
    await expect(find(tools, 'v1__fail').execute({}, context())).rejects.toThrow(/^the disk is full$/);
  });

  it('a 5 MB result arrives whole', async () => {
    const result = (await find(tools, 'v1__big').execute({ bytes: 5_000_000 }, context())) as string;
    expect(result.length).toBe(5_000_000);
  });

  it('env values never appear in results, errors or progress messages', async () => {
    expect(await find(tools, 'v1__secret').execute({}, context())).toBe('token is [redacted]');
    await expect(find(tools, 'v1__secret').execute({ fail: true }, context())).rejects.toThrow(
      /^token is \[redacted\]$/,
    );
    progress.length = 0;
    await find(tools, 'v1__progress').execute({ steps: 1 }, context());
    expect(progress.map((event) => event.message)).toEqual(['step 1 of 1 [redacted]']);
    expect(JSON.stringify(progress)).not.toContain(SECRET);
  });

  it('surfaces progress notifications with the call they belong to', async () => {
    progress.length = 0;
    const call = context();
    expect(await find(tools, 'v1__progress').execute({ steps: 3 }, call)).toBe('done');
    expect(progress).toEqual(
      [1, 2, 3].map((step) => ({
        server: 'v1',
        tool: 'v1__progress',
        callId: call.callId,
        runId: 'run_test',
        progress: step,
        total: 3,
        message: `step ${step} of 3 [redacted]`,
      })),
    );
  });

  it("the call's signal cancels it and the server receives notifications/cancelled", async () => {
    const controller = new AbortController();
    const pending = find(tools, 'v1__slow').execute({}, context(controller.signal));
    await until(() => fs.existsSync(record) && fs.readFileSync(record, 'utf8').includes('started'));
    controller.abort();
    await expect(pending).rejects.toThrow('MCP tool "slow" on server "v1" was cancelled (the server was told).');
    await until(() => fs.readFileSync(record, 'utf8').includes('cancelled'));
    const lines = fs.readFileSync(record, 'utf8').trim().split('\n');
    expect(lines[0]?.replace('started', 'cancelled')).toBe(lines[1]);
  });

  it('refreshes the list on notifications/tools/list_changed and keeps it cached otherwise', async () => {
    const before = await connection.tools();
    expect(await connection.tools()).toBe(before);
    // The server changes a description silently: without ttlMs nothing is fetched again.
    await find(tools, 'v1__mutate').execute({}, context());
    expect(find(await connection.tools(), 'v1__echo').description).toBe('Echoes the text back');
    await find(tools, 'v1__add_tool').execute({}, context());
    let after = before;
    await until(() => {
      void connection.tools().then((list) => {
        after = list;
      });
      return after.some((tool) => tool.name === 'v1__late');
    });
    expect(find(after, 'v1__echo').description).toBe('Echoes the text back (changed)');
    expect(await find(after, 'v1__late').execute({}, context())).toBe('late');
  });
});

describe('trust', () => {
  const server = { name: 'v1', command: process.execPath, args: [fixture('v1-server.mjs')] };
  const flags = (tools: Tool[], name: string) => {
    const tool = find(tools, name);
    return [tool.readOnly, tool.requiresApproval, tool.idempotent];
  };

  it("'all' believes the hints and asks for nothing; 'none' asks for everything and believes nothing", async () => {
    const all = await connectMcp(server, { timeoutMs: 30_000, trust: 'all', onWarning: () => undefined });
    const none = await connectMcp(server, { timeoutMs: 30_000, trust: 'none', onWarning: () => undefined });
    try {
      const [allTools, noneTools] = await Promise.all([all.tools(), none.tools()]);
      expect(flags(allTools, 'v1__echo')).toEqual([true, false, undefined]);
      expect(flags(allTools, 'v1__add')).toEqual([false, false, undefined]);
      expect(flags(noneTools, 'v1__echo')).toEqual([false, true, undefined]);
      expect(flags(noneTools, 'v1__add')).toEqual([false, true, undefined]);
    } finally {
      await Promise.all([all.close(), none.close()]);
    }
  });
});

describe('ttlMs', () => {
  it("a list past the server's ttlMs is fetched again", async () => {
    const connection = await connectMcp(
      { name: 'v1', command: process.execPath, args: [fixture('v1-server.mjs'), '--ttl', '1'] },
      { timeoutMs: 30_000, onWarning: () => undefined },
    );
    try {
      const tools = await connection.tools();
      await find(tools, 'v1__mutate').execute({}, context());
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(find(await connection.tools(), 'v1__echo').description).toBe('Echoes the text back (changed)');
    } finally {
      await connection.close();
    }
  });
});
