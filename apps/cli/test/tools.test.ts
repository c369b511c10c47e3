import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli, tempDir } from './cli-process';

beforeAll(requireBuild);

describe('bridle tools and bridle skills', () => {
  it('bridle tools lists the tools of these flags and which ask first, with no key', async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'project'));
    const result = await runCli(['tools', '-w', 'project', '--allow-command', `test=${process.execPath} --version`], {
      cwd,
    });
    expect(result.code).toBe(0);
    const kinds = Object.fromEntries(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => {
          const [name, kind] = line.split(/\s+/);
          return [name, kind];
        }),
    );
    expect(kinds).toMatchObject({
      read_file: 'read-only',
      write_file: 'asks',
      edit_file: 'asks',
      run_command: 'asks',
      list_directory: 'read-only',
    });
    const json = await runCli(['tools', '--json'], { cwd });
    const names = json.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { name: string }).name);
    expect(names).toEqual(['clock', 'calculator', 'http_fetch']);
  });

  it('bridle skills lists the built-in skills with their tools', async () => {
    const result = await runCli(['skills', '--json']);
    expect(result.code).toBe(0);
    const skills = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; tools: string[] });
    expect(skills.map((skill) => skill.name)).toEqual(['assistant', 'coding', 'analyst']);
    expect(skills[1]?.tools).toContain('write_file');
  });
});

describe('bridle init', () => {
  it('writes a commented starter that loads as it is, and never overwrites without --force', async () => {
    const cwd = tempDir();
    const first = await runCli(['init'], { cwd });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('Wrote ');
    const starter = readFileSync(join(cwd, 'bridle.config.json'), 'utf8');
    expect(starter).toMatch(/^\/\/ Bridle settings/);
    // The starter is valid: a trusted run of this folder takes its workspace and skills.
    const tools = await runCli(['tools', '--trust-project'], { cwd });
    expect(tools.stderr).not.toContain('bridle.config.json:');
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^write_file +asks first/m);
    const again = await runCli(['init'], { cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists: edit it, or pass --force');
    expect((await runCli(['init', '--force'], { cwd })).code).toBe(0);
  });
});
