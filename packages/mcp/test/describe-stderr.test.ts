import { describe, expect, it } from 'vitest';
import { describeStderr } from '../src/describe-stderr';

const NODE = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/home/me/project/examples/notes-server.mjs'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

const PYTHON = `Starting weather server
Loading configuration from /etc/weather.toml
Using cache at /tmp/weather
Traceback (most recent call last):
  File "/srv/weather/server.py", line 3, in <module>
    from mcp.server.fastmcp import FastMCP
ModuleNotFoundError: No module named 'mcp'
`;

describe('describeStderr', () => {
  it("Node's error for a missing script: its first lines, without the stack, the dump or the footer", () => {
    expect(describeStderr(NODE, 'first')).toBe(
      "node:internal/modules/cjs/loader:1228 | Error: Cannot find module '/home/me/project/examples/notes-server.mjs'",
    );
  });

  it("Python's exception, printed last, is always shown", () => {
    expect(describeStderr(PYTHON, 'first')).toBe(
      "Starting weather server | Loading configuration from /etc/weather.toml … ModuleNotFoundError: No module named 'mcp'",
    );
    expect(describeStderr(PYTHON, 'last')).toBe(
      "Using cache at /tmp/weather | Traceback (most recent call last): | ModuleNotFoundError: No module named 'mcp'",
    );
  });

  it('only indented lines: shown trimmed; nothing: empty', () => {
    expect(describeStderr('  just this\n', 'first')).toBe('just this');
    expect(describeStderr('\n\n', 'first')).toBe('');
    expect(describeStderr('x'.repeat(1000), 'first')).toHaveLength(400);
  });
});
