import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formatPermissionRule,
  parseBridleConfig,
  parsePermissionRule,
  permissionsPath,
  readPermissionList,
  updatePermissionList,
} from '../src/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-permissions-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function failure(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('permission rules', () => {
  it('reads <tool> and <tool>(<pattern>) and writes them back the same', () => {
    expect(parsePermissionRule('edit_file')).toEqual({ tool: 'edit_file' });
    expect(parsePermissionRule(' edit_file(src/**) ')).toEqual({ tool: 'edit_file', pattern: 'src/**' });
    expect(parsePermissionRule('run_command(test)')).toEqual({ tool: 'run_command', pattern: 'test' });
    expect(parsePermissionRule('shell(npm run build (all))')).toEqual({
      tool: 'shell',
      pattern: 'npm run build (all)',
    });
    for (const rule of ['edit_file', 'edit_file(src/**)', 'run_command(test)'])
      expect(formatPermissionRule(parsePermissionRule(rule))).toBe(rule);
  });

  it('refuses anything else, naming the rule and the shape', () => {
    expect(failure(() => parsePermissionRule('edit_file()'))).toBe(
      '"edit_file()" is not a permission rule: write <tool> or <tool>(<pattern>), e.g. edit_file(src/**) (a path glob) or run_command(test) (one preset).',
    );
    for (const bad of ['', 'edit file', 'edit_file(src', 'edit_file(a)b', 'x(a\nb)', `x(${'a'.repeat(600)})`])
      expect(failure(() => parsePermissionRule(bad))).toContain('is not a permission rule');
    expect(failure(() => parsePermissionRule(3))).toContain('must be a string, got number 3');
  });

  it('a config file takes permissions.allow, checked rule by rule', () => {
    expect(parseBridleConfig('{"permissions":{"allow":["edit_file(src/**)"]}}', '/p/bridle.config.json')).toEqual({
      permissions: { allow: ['edit_file(src/**)'] },
    });
    expect(failure(() => parseBridleConfig('{"permissions":{"allow":["a b"]}}', '/p/bridle.config.json'))).toContain(
      '/p/bridle.config.json: "permissions.allow[0]" "a b" is not a permission rule',
    );
    expect(failure(() => parseBridleConfig('{"permissions":{"deny":[]}}', '/p/c.json'))).toContain(
      '"permissions.deny" is not a known key (use allow)',
    );
  });
});

describe('permissions.json', () => {
  it('is empty when missing; written atomically (mode 600), rules kept per folder', async () => {
    const path = permissionsPath(join(dir, 'config'));
    expect(readPermissionList(path)).toEqual({ version: 1, folders: {} });
    await updatePermissionList(path, (list) => {
      list.folders['/work/app'] = { rules: [{ rule: 'edit_file(src/**)', addedAt: '2026-12-07T00:00:00.000Z' }] };
    });
    await updatePermissionList(path, (list) => {
      list.folders['/work/app']?.rules.push({ rule: 'run_command(test)', addedAt: '2026-12-07T00:00:01.000Z' });
    });
    expect(readPermissionList(path).folders['/work/app']?.rules.map((entry) => entry.rule)).toEqual([
      'edit_file(src/**)',
      'run_command(test)',
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'config')).sort()).toEqual(['permissions.json']);
  });

  it('a corrupt file is an error naming it and the fix, and is never overwritten', async () => {
    const path = join(dir, 'permissions.json');
    for (const [text, problem] of [
      ['{', 'is not valid JSON'],
      ['[]', 'must hold an object, not an array'],
      ['{"version":2,"folders":{}}', 'has version number 2, expected 1'],
      ['{"version":1,"folders":{"/a":{"rules":"all"}}}', 'has a bad entry for /a'],
      ['{"version":1,"folders":{"/a":{"rules":[{"rule":"a b","addedAt":"x"}]}}}', 'has a bad rule for /a'],
    ] as const) {
      writeFileSync(path, text);
      const message = failure(() => readPermissionList(path));
      expect(message).toContain(`The remembered permissions file ${path} ${problem}`);
      expect(message).toContain(
        'No rule in it applies until it is fixed (every call asks): repair the JSON, or delete the file',
      );
      await expect(updatePermissionList(path, () => undefined)).rejects.toThrow(problem);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });
});
