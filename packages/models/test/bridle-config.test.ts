import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { parseBridleConfig } from '../src/bridle-config';

const path = '/repo/bridle.config.json';

function error(value: unknown): string {
  try {
    parseBridleConfig(typeof value === 'string' ? value : JSON.stringify(value), path);
  } catch (caught) {
    expect(ConfigError.isInstance(caught)).toBe(true);
    return (caught as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('parseBridleConfig', () => {
  it('reads the whole shape and resolves relative paths against the file', () => {
    const config = parseBridleConfig(
      JSON.stringify({
        model: 'openai-compatible:http://localhost:11434/v1#llama3.2',
        skill: ['coding', './skills/review'],
        workspace: '.',
        presets: { test: { executable: 'npm', args: ['test'], params: { file: { type: 'string' } }, timeoutMs: 5000 } },
        mcpServers: {
          files: { command: './bin/server', args: ['--root', '.'], env: { A: 'b' }, cwd: 'tools' },
          remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer $TOKEN' } },
        },
        approval: 'ask',
        store: 'sqlite:.bridle/runs.db',
        maxSteps: 20,
        maxCostUsd: 0.5,
      }),
      path,
    );
    expect(config).toEqual({
      model: 'openai-compatible:http://localhost:11434/v1#llama3.2',
      skill: ['coding', '/repo/skills/review'],
      workspace: '/repo',
      presets: { test: { executable: 'npm', args: ['test'], params: { file: { type: 'string' } }, timeoutMs: 5000 } },
      mcpServers: {
        files: { command: '/repo/bin/server', args: ['--root', '.'], env: { A: 'b' }, cwd: '/repo/tools' },
        remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer $TOKEN' } },
      },
      approval: 'ask',
      store: 'sqlite:.bridle/runs.db',
      maxSteps: 20,
      maxCostUsd: 0.5,
    });
    expect(parseBridleConfig('{"skill":"analyst"}', path)).toEqual({ skill: ['analyst'] });
  });

  it('reads the sandbox setting and sandboxed presets, and names a wrong one', () => {
    expect(
      parseBridleConfig(
        JSON.stringify({
          sandbox: { network: true, env: ['NPM_TOKEN'] },
          presets: { test: { executable: 'npm', args: ['test'], sandbox: true } },
        }),
        path,
      ),
    ).toEqual({
      sandbox: { network: true, env: ['NPM_TOKEN'] },
      presets: { test: { executable: 'npm', args: ['test'], sandbox: true } },
    });
    expect(parseBridleConfig('{"sandbox": true}', path)).toEqual({ sandbox: true });
    expect(error({ sandbox: 'yes' })).toContain('"sandbox" must be an object, got "yes"');
    expect(error({ sandbox: { network: 'on' } })).toContain('"sandbox.network" must be true or false, got "on"');
    expect(error({ sandbox: { net: true } })).toContain('"sandbox.net" is not a known key (use network, env)');
    expect(error({ presets: { t: { executable: 'x', sandbox: 1 } } })).toContain(
      '"presets.t.sandbox" must be true or false, got number 1',
    );
  });

  it('names the file and the field for unknown keys at every level', () => {
    expect(error({ modle: 'x' })).toMatch(
      /^\/repo\/bridle\.config\.json: "modle" is not a known key \(use model, skill,/,
    );
    expect(error({ presets: { t: { executable: 'x', shell: true } } })).toContain(
      '"presets.t.shell" is not a known key',
    );
    expect(error({ mcpServers: { s: { command: 'x', comand: 'y' } } })).toContain(
      '"mcpServers.s.comand" is not a known key',
    );
    expect(error({ mcpServers: { s: { url: 'http://x', command: 'y' } } })).toContain(
      '"mcpServers.s.command" is not a known key',
    );
    expect(error('{"__proto__": {"model": "x"}}')).toContain('"__proto__" is not allowed');
  });

  it('names the file and the field for wrong types', () => {
    expect(error({ maxSteps: '3' })).toContain('"maxSteps" must be a positive integer, got "3"');
    expect(error({ maxSteps: 1.5 })).toContain('"maxSteps" must be a positive integer');
    expect(error({ maxCostUsd: -1 })).toContain('"maxCostUsd" must be a positive number, got number -1');
    expect(error({ approval: 'always' })).toContain('"approval" must be "ask", "yes" or "deny", got "always"');
    expect(error({ skill: ['a', 3] })).toContain('"skill[1]" must be a string, got number 3');
    expect(error({ presets: { t: { args: ['x'] } } })).toContain(
      '"presets.t.executable" must be a non-empty string, got undefined',
    );
    expect(error({ presets: { t: { executable: 'x', args: 'y' } } })).toContain(
      '"presets.t.args" must be an array of strings',
    );
    expect(error({ mcpServers: { s: { command: 'x', env: { A: 1 } } } })).toContain(
      '"mcpServers.s.env.A" must be a string, got number 1',
    );
    expect(error({ mcpServers: { s: {} } })).toContain('"mcpServers.s" needs "command" (a program to start) or "url"');
    expect(error({ mcpServers: { s: { url: 'file:///etc/passwd' } } })).toContain(
      '"mcpServers.s.url" must be an http(s) URL',
    );
    expect(error({ model: 'gpt-4o' })).toContain('"model" is not a model id: Invalid model id "gpt-4o"');
    expect(error([])).toMatch(/^\/repo\/bridle\.config\.json: the file must be an object, got an array/);
  });

  it('names the file for invalid JSON', () => {
    expect(error('{"model": ')).toMatch(/^\/repo\/bridle\.config\.json is not valid JSON: /);
  });

  it('takes whole-line // comments (the starter bridle init writes), never a // inside a value', () => {
    const text = '// settings\n{\n  // the model\n  "model": "openai:gpt-4o-mini",\n  "store": "sqlite://x"\n}\n';
    expect(parseBridleConfig(text, '/p/bridle.config.json')).toMatchObject({
      model: 'openai:gpt-4o-mini',
      store: 'sqlite://x',
    });
  });
});
