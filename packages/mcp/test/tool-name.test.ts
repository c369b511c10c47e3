import { describe, expect, it } from 'vitest';
import { mcpToolName } from '../src/tool-name';

describe('mcpToolName', () => {
  it('joins server and tool with __ and keeps [A-Za-z0-9_-]', () => {
    expect(mcpToolName('files', 'read_file')).toBe('files__read_file');
    expect(mcpToolName('my.server', 'get-thing v2')).toBe('my_server__get-thing_v2');
    expect(mcpToolName('ünïcode', 'tool/name')).toBe('_n_code__tool_name'.replace(/^/, 'mcp_'));
  });

  it('starts with a letter', () => {
    expect(mcpToolName('1password', 'list')).toBe('mcp_1password__list');
    expect(mcpToolName('_x', 'y')).toBe('mcp__x__y');
  });

  it('cuts past 64 characters and ends in a hash of the original name', () => {
    const a = mcpToolName('server', 'x'.repeat(80));
    const b = mcpToolName('server', `${'x'.repeat(79)}y`);
    expect(a).toHaveLength(64);
    expect(a).toMatch(/^server__x{47}_[0-9a-f]{8}$/);
    expect(b).not.toBe(a);
    expect(mcpToolName('server', 'x'.repeat(80))).toBe(a);
    expect(mcpToolName('s', 'x'.repeat(61))).toHaveLength(64);
  });
});
