import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureBundle } from '../../../vitest.fixtures';
import { connectMcp, serveMcp } from '../src/index';
import { context } from './helpers';

// test/servers/serve-workspace.mts, bundled once per run by test/bundle-fixtures.ts.
const serverArgs = (root: string, ...extra: string[]) => [
  fixtureBundle(path.join(import.meta.dirname, '..'), 'test/servers/serve-workspace.mts'),
  root,
  ...extra,
];
const textOf = (result: object) =>
  (result as { content: { text: string }[] }).content.map((part) => part.text).join('\n');

describe('serveMcp driven by the v1 SDK Client', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-serve-'));
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from the workspace\n');
  fs.writeFileSync(path.join(path.dirname(root), 'outside-secret.txt'), 'do not read me');
  const client = new Client({ name: 'sdk-v1-client', version: '1.0.0' });
  beforeAll(async () => {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: serverArgs(root), stderr: 'pipe' }),
    );
  }, 60_000);
  afterAll(() => client.close());

  it('lists the tools with their schemas and annotations, and the instructions', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      ['calculator', 'edit_file', 'find_files', 'list_directory', 'read_file', 'search_text', 'write_file'].sort(),
    );
    expect(byName.get('read_file')?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(byName.get('write_file')?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('write_file')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('read_file')?.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
    expect(client.getInstructions()).toBe('Work inside the folder.');
  });

  it('reads and writes inside the folder', async () => {
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'hello.txt' } });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain('hello from the workspace');
    const write = await client.callTool({ name: 'write_file', arguments: { path: 'new.txt', content: 'written' } });
    expect(write.isError).toBeFalsy();
    expect(fs.readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('written');
  });

  it('refuses a ../ path as an isError result, and nothing outside is read', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: '../outside-secret.txt' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /Refused: path "\.\.\/[a-z-]+\.txt" contains "\.\.": paths must stay inside the workspace/,
    );
    expect(textOf(result)).not.toContain('do not read me');
    const write = await client.callTool({ name: 'write_file', arguments: { path: '../escape.txt', content: 'x' } });
    expect(write.isError).toBe(true);
    expect(fs.existsSync(path.join(path.dirname(root), 'escape.txt'))).toBe(false);
  });

  it('invalid arguments and unknown tools are isError results with the loop wording; execute never runs', async () => {
    const invalid = await client.callTool({ name: 'write_file', arguments: { path: 'x.txt' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^Invalid arguments: \$: /);
    expect(fs.existsSync(path.join(root, 'x.txt'))).toBe(false);
    const unknown = await client.callTool({ name: 'rm_rf', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^Unknown tool: rm_rf\. Available tools: /);
  });

  it('non-string results are JSON', async () => {
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6 * 7' } });
    expect(JSON.parse(textOf(result))).toMatchObject({ result: 42 });
  });
});

describe('serveMcp driven by connectMcp (v2 client)', () => {
  it('round trip: Bridle tools served over MCP come back as Bridle tools, results bounded', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-serve-'));
    fs.writeFileSync(path.join(root, 'long.txt'), 'a'.repeat(5000));
    const connection = await connectMcp(
      { name: 'bridle', command: process.execPath, args: serverArgs(root, '--max-result-chars', '1000') },
      { timeoutMs: 60_000 },
    );
    try {
      const tools = await connection.tools();
      const read = tools.find((tool) => tool.name === 'bridle__read_file');
      expect([read?.readOnly, read?.requiresApproval]).toEqual([true, false]);
      expect(tools.find((tool) => tool.name === 'bridle__write_file')?.requiresApproval).toBe(true);
      const text = (await read?.execute({ path: 'long.txt' }, context())) as string;
      expect(text.length).toBeLessThanOrEqual(1000);
      expect(text).toMatch(/omitted/);
      await expect(read?.execute({ path: '../long.txt' }, context())).rejects.toThrow(
        /Refused: path "\.\.\/[a-z-]+\.txt" contains "\.\.": paths must stay inside the workspace/,
      );
    } finally {
      await connection.close();
    }
  });
});

describe('serveMcp options', () => {
  it('bad tools and options are ConfigErrors before anything is served', () => {
    expect(() =>
      serveMcp([{ name: 'bad name', description: '', parameters: { type: 'object' }, execute: () => 1 }]),
    ).toThrow(ConfigError);
    expect(() => serveMcp([], { maxResultChars: 0 })).toThrow(
      'Invalid serveMcp option maxResultChars: expected an integer >= 1 (a safe integer), got number 0.',
    );
  });
});
