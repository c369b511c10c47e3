import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { permissionsPath } from '@bridle/models';
import { ConfigError, type ToolCall } from '@bridle/protocol';
import { Workspace } from '@bridle/workspace-tools';
import { describe, expect, it } from 'vitest';
import { approvalRules } from '../src/permission-rules';
import { tempDir } from './cli-process';

const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: 'c', name, arguments: args });

async function setup(configRules: string[] = []) {
  const root = tempDir();
  mkdirSync(join(root, 'src'));
  const configDir = join(tempDir(), 'bridle');
  const workspace = await Workspace.open(root);
  return { root, configDir, workspace, rules: approvalRules({ folder: root, configDir, workspace, configRules }) };
}

describe('approval rules', () => {
  it('a path glob covers matching paths only, never a protected or invalid one', async () => {
    const { rules } = await setup(['edit_file(src/**)']);
    expect(await rules.match(call('edit_file', { path: 'src/a.ts' }))).toBe('edit_file(src/**)');
    expect(await rules.match(call('edit_file', { path: './src/deep/b.ts' }))).toBe('edit_file(src/**)');
    expect(await rules.match(call('edit_file', { path: 'lib/a.ts' }))).toBeUndefined();
    expect(await rules.match(call('write_file', { path: 'src/a.ts' }))).toBeUndefined();
    for (const path of [
      'src/.env',
      'src/.env.local',
      'src/.git/config',
      'src/.bridle/x',
      'src/../.env',
      '/etc/passwd',
      7,
    ])
      expect(await rules.match(call('edit_file', { path }))).toBeUndefined();
  });

  it('a bare tool covers every call of it except protected paths; a preset rule covers that preset only', async () => {
    const { rules } = await setup(['write_file', 'run_command(test)']);
    expect(await rules.match(call('write_file', { path: 'notes.md' }))).toBe('write_file');
    expect(await rules.match(call('write_file', { path: '.env' }))).toBeUndefined();
    expect(await rules.match(call('write_file', { path: '.git/hooks/pre-commit' }))).toBeUndefined();
    expect(await rules.match(call('run_command', { command: 'test' }))).toBe('run_command(test)');
    expect(await rules.match(call('run_command', { command: 'deploy' }))).toBeUndefined();
  });

  it('suggests a rule for the folder of the file, the file at the root, the preset, else the tool', async () => {
    const { rules } = await setup();
    expect(await rules.suggest(call('edit_file', { path: 'src/lib/a.ts' }))).toBe('edit_file(src/lib/**)');
    expect(await rules.suggest(call('write_file', { path: 'notes.md' }))).toBe('write_file(notes.md)');
    expect(await rules.suggest(call('write_file', { path: 'a*b/[x].md' }))).toBe('write_file(a\\*b/**)');
    expect(await rules.suggest(call('run_command', { command: 'test' }))).toBe('run_command(test)');
    expect(await rules.suggest(call('mcp_tool', { query: 'x' }))).toBe('mcp_tool');
    expect(await rules.suggest(call('edit_file', { path: '.env' }))).toBeUndefined();
  });

  it('remembers a rule per folder in permissions.json; a new instance for the folder reads it back', async () => {
    const { root, configDir, workspace, rules } = await setup();
    expect(await rules.match(call('edit_file', { path: 'src/a.ts' }))).toBeUndefined();
    await rules.remember('edit_file(src/**)');
    await rules.remember('edit_file(src/**)');
    expect(await rules.match(call('edit_file', { path: 'src/a.ts' }))).toBe('edit_file(src/**)');
    const again = approvalRules({ folder: root, configDir, workspace });
    expect(await again.match(call('edit_file', { path: 'src/a.ts' }))).toBe('edit_file(src/**)');
    const other = approvalRules({ folder: `${root}-other`, configDir, workspace });
    expect(await other.match(call('edit_file', { path: 'src/a.ts' }))).toBeUndefined();
    const file = JSON.parse(readFileSync(permissionsPath(configDir), 'utf8'));
    expect(Object.keys(file.folders)).toEqual([root]);
    expect(file.folders[root].rules.map((entry: { rule: string }) => entry.rule)).toEqual(['edit_file(src/**)']);
  });

  it('without a workspace no rule covers a call with a path', async () => {
    const { root, configDir } = await setup();
    const rules = approvalRules({ folder: root, configDir, configRules: ['write_file'] });
    expect(await rules.match(call('write_file', { path: 'a.txt' }))).toBeUndefined();
  });

  it('a corrupt permissions.json is a ConfigError naming it, never an allow', async () => {
    const { root, configDir, workspace } = await setup();
    mkdirSync(configDir, { recursive: true });
    writeFileSync(permissionsPath(configDir), '{"version":1,"folders":');
    let error: unknown;
    try {
      approvalRules({ folder: root, configDir, workspace });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      `The remembered permissions file ${permissionsPath(configDir)} is not valid JSON`,
    );
  });
});
