import { runAgent } from '@bridle/core';
import type { Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../src/index';
import { context, fixture } from './helpers';

// `^(a+)+$` on JavaScript's RegExp: 30 a's and a "!" take seconds, these would take longer than the universe.
const LONG = `${'a'.repeat(100_000)}!`;
const PATTERN = '^(a+)+$';

/** `{ a: { a: ... } }`, `depth` levels. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

const find = (tools: Tool[], name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(', ')}`);
  return tool;
};

describe('a server whose schemas try to stall the harness', () => {
  let connection: McpConnection;
  let tools: Tool[];
  const warnings: string[] = [];
  beforeAll(async () => {
    connection = await connectMcp(
      { name: 'hostile', command: process.execPath, args: [fixture('hostile-schema-server.mjs')] },
      { timeoutMs: 8000, onWarning: (message) => warnings.push(message), trust: 'all' },
    );
    tools = await connection.tools();
  });
  afterAll(() => connection.close());

  it('a pattern no linear-time engine runs is refused at listing, with a warning naming the tool', () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      'hostile__match',
      'hostile__keys',
      'hostile__report',
      'hostile__wait',
      'hostile__nest',
    ]);
    expect(warnings).toEqual([
      'MCP server "hostile": tool "wide" is skipped: Tool "hostile__wide": parameters is too complex for a schema from an untrusted source: one value would be checked along more than 10000 paths (its $ref and anyOf / allOf / oneOf branches multiply). Simplify the schema.',
      'MCP server "hostile": tool "lookahead" is skipped: Tool "hostile__lookahead": parameters could not be compiled: pattern "^(?=a)a+$" cannot run on the linear-time engine (invalid or unsupported Perl syntax: `(?=`): a schema from an untrusted source may not use lookaround, backreferences or repeat counts over 1000. Fix the schema.',
      'MCP server "hostile": tool "lookahead_output" is skipped: Schema could not be compiled: pattern "^(?!b)" cannot run on the linear-time engine (invalid or unsupported Perl syntax: `(?!`): a schema from an untrusted source may not use lookaround, backreferences or repeat counts over 1000. Fix the schema.',
    ]);
  });

  it('arguments checked by a catastrophic pattern get their answer: the run goes on', async () => {
    const model = scriptedModel([
      {
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'hostile__match', arguments: { text: LONG } },
          { id: 'call_2', name: 'hostile__keys', arguments: { [LONG]: 1 } },
          { id: 'call_3', name: 'hostile__match', arguments: { text: 'aaaa' } },
          { id: 'call_4', name: 'hostile__nest', arguments: nested(40) },
        ],
      },
      { content: 'done' },
    ]);
    const result = await runAgent({ model, tools, prompt: 'try them' });
    expect(result.status).toBe('completed');
    const results = result.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => [message.callId, message.isError])).toEqual([
      ['call_1', true],
      ['call_2', false],
      ['call_3', false],
      ['call_4', true],
    ]);
    expect(results[0]?.content).toContain(`$.text: must match pattern "${PATTERN}"`);
    // A key the pattern does not match is an ordinary extra property.
    expect(results[1]?.content).toBe('ran keys');
    expect(results[2]?.content).toBe('ran match');
    expect(results[3]?.content).toContain('checking this value against the schema would take more than');
  });

  it('structured content checked by a catastrophic output schema gets its answer', async () => {
    await expect(find(tools, 'hostile__report').execute({}, context())).rejects.toThrow(
      `Structured content does not match the tool's output schema: $.text: must match pattern "${PATTERN}"`,
    );
  });

  it("a run's deadline still ends the run", async () => {
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'call_1', name: 'hostile__match', arguments: { text: LONG } }] },
      { content: '', toolCalls: [{ id: 'call_2', name: 'hostile__wait', arguments: {} }] },
      { content: 'never reached' },
    ]);
    const result = await runAgent({ model, tools, prompt: 'wait', timeoutMs: 1000 });
    expect(result.status).toBe('timeout');
    expect(result.messages.filter((message) => message.role === 'tool').map((message) => message.callId)).toEqual([
      'call_1',
      'call_2',
    ]);
  });
});
