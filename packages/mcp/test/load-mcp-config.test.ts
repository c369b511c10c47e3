// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config syntax under test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { loadMcpConfig, parseMcpConfig } from '../src/load-mcp-config';

function write(content: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-mcp-config-'));
  const file = path.join(dir, '.mcp.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('loadMcpConfig', () => {
  it('reads stdio and HTTP servers, expands variables and resolves relative paths against the file', async () => {
    const file = write({
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server', '${HOME_DIR}'], env: { TOKEN: '${TOKEN}' }, cwd: 'sub' },
        local: { type: 'stdio', command: './bin/server.js', autoApprove: ['x'] },
        remote: {
          type: 'http',
          url: 'https://${HOST:-mcp.example.test}/mcp',
          headers: { Authorization: 'Bearer ${TOKEN}' },
        },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
      otherTool: { ignored: true },
    });
    const folder = path.dirname(file);
    expect(await loadMcpConfig(file, { env: { HOME_DIR: '/home/me', TOKEN: 'abc-123' } })).toEqual([
      {
        name: 'files',
        command: 'npx',
        args: ['-y', 'server', '/home/me'],
        env: { TOKEN: 'abc-123' },
        cwd: path.join(folder, 'sub'),
      },
      { name: 'local', type: 'stdio', command: path.join(folder, 'bin/server.js') },
      {
        name: 'remote',
        type: 'http',
        url: 'https://mcp.example.test/mcp',
        headers: { Authorization: 'Bearer abc-123' },
      },
      { name: 'old', type: 'sse', url: 'http://127.0.0.1:9/sse' },
    ]);
  });

  it('a default applies when the variable is unset or empty; a value is never expanded twice', async () => {
    const file = write({ mcpServers: { a: { command: 'x', args: ['${A:-one}', '${B:-two}', '${C}'] } } });
    const [server] = await loadMcpConfig(file, { env: { B: '', C: '${A}' } });
    expect(server).toEqual({ name: 'a', command: 'x', args: ['one', 'two', '${A}'] });
  });

  it('an unset ${VAR} is a ConfigError naming it, the file and the server', async () => {
    const file = write({
      mcpServers: { github: { url: 'https://x.test', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } },
    });
    const error = await loadMcpConfig(file, { env: {} }).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${file}: server "github" "headers".Authorization uses \${GITHUB_TOKEN}, but GITHUB_TOKEN is not set. Set it in the environment, or write \${GITHUB_TOKEN:-default} to give a default.`,
    );
  });

  it('bad shapes name the file and the server', async () => {
    const cases: [unknown, string][] = [
      ['{ not json', 'is not valid JSON'],
      [[], 'must be an object with "mcpServers"'],
      [{ servers: {} }, 'must be an object with "mcpServers"'],
      [
        { mcpServers: { a: 'npx x' } },
        'server "a" must be an object { "command": ... } or { "url": ... }, got "npx x".',
      ],
      [{ mcpServers: { a: {} } }, 'server "a" needs exactly one of "command"'],
      [{ mcpServers: { a: { command: 'x', args: 'y' } } }, 'server "a": "args" must be an array of strings'],
      [{ mcpServers: { a: { url: 'file:///etc/passwd' } } }, 'server "a": "url" must start with http:// or https://'],
      [{ mcpServers: { a: { type: 'ws', url: 'http://x' } } }, 'server "a": "type" must be "stdio", "http" or "sse"'],
      [{ mcpServers: { a: { type: 'http', command: 'x' } } }, 'server "a": type "http" needs a "url"'],
      [{ mcpServers: { a: { command: 'x', env: { K: 1 } } } }, 'server "a": "env.K" must be a string.'],
    ];
    for (const [content, message] of cases) {
      const file = write(content);
      const error = (await loadMcpConfig(file, { env: {} }).catch((caught: unknown) => caught)) as Error;
      expect(ConfigError.isInstance(error), message).toBe(true);
      expect(error.message).toContain(file);
      expect(error.message).toContain(message);
    }
  });

  it('parseMcpConfig reads text already read, anchored at the file it came from', () => {
    const servers = parseMcpConfig('{"mcpServers":{"a":{"command":"./s.js","cwd":"."}}}', '/trusted/repo/.mcp.json', {
      env: {},
    });
    expect(servers).toEqual([{ name: 'a', command: '/trusted/repo/s.js', cwd: '/trusted/repo' }]);
    expect(() => parseMcpConfig('{}', '/trusted/repo/.mcp.json')).toThrow(
      '/trusted/repo/.mcp.json must be an object with "mcpServers"',
    );
  });

  it('a missing file names the path and the settings that point at it', async () => {
    await expect(loadMcpConfig('/no/such/dir/.mcp.json')).rejects.toThrow(
      'Cannot read the MCP config /no/such/dir/.mcp.json (ENOENT). Check the path given to --mcp or BRIDLE_MCP_CONFIG.',
    );
  });

  it('env values never appear in errors', async () => {
    const file = write({ mcpServers: { a: { command: 'x', env: { KEY: 'super-secret-value' }, args: [1] } } });
    const error = (await loadMcpConfig(file, { env: {} }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain('"args" must be an array of strings');
    expect(error.message).not.toContain('super-secret-value');
  });
});
