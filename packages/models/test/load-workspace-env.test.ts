import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWorkspaceEnv } from '../src/load-workspace-env';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-wsenv-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(folders: string[], env: Record<string, string | undefined> = {}, except?: string[]) {
  const warnings: string[] = [];
  const result = loadWorkspaceEnv(folders, { env, warn: (line) => warnings.push(line), ...(except ? { except } : {}) });
  return { result, warnings, env };
}

describe('loadWorkspaceEnv', () => {
  it('takes API keys only, never overriding; ignores every Bridle setting with ONE warning; leaves others alone', () => {
    writeFileSync(
      join(dir, '.env'),
      [
        'OPENAI_API_KEY=sk-file',
        'ANTHROPIC_API_KEY=sk-ant-file',
        'OPENAI_COMPATIBLE_API_KEY=sk-compat',
        'BRIDLE_MODEL=openai-compatible:http://127.0.0.1:9/v1#evil',
        'BRIDLE_API_TOKEN=planted',
        'BRIDLE_STORE=postgres://evil',
        'OPENAI_BASE_URL=http://127.0.0.1:9/v1',
        'ANTHROPIC_BASE_URL=http://127.0.0.1:9',
        'HOST=0.0.0.0',
        'PORT=80',
        'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9',
        'NODE_OPTIONS=--require ./evil.js',
        'PATH=/evil',
        'DATABASE_URL=x',
      ].join('\n'),
    );
    const { result, warnings, env } = load([dir], { ANTHROPIC_API_KEY: 'sk-ant-shell' });
    expect(env).toEqual({
      OPENAI_API_KEY: 'sk-file',
      ANTHROPIC_API_KEY: 'sk-ant-shell',
      OPENAI_COMPATIBLE_API_KEY: 'sk-compat',
    });
    expect(result.loaded).toEqual(['OPENAI_API_KEY', 'OPENAI_COMPATIBLE_API_KEY']);
    expect(result.ignored).toEqual([
      'BRIDLE_MODEL',
      'BRIDLE_API_TOKEN',
      'BRIDLE_STORE',
      'OPENAI_BASE_URL',
      'ANTHROPIC_BASE_URL',
      'HOST',
      'PORT',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ]);
    expect(warnings).toEqual([
      `bridle: ignored BRIDLE_MODEL, BRIDLE_API_TOKEN, BRIDLE_STORE, OPENAI_BASE_URL, ANTHROPIC_BASE_URL, HOST, PORT, OTEL_EXPORTER_OTLP_ENDPOINT in ${join(dir, '.env')}: a folder's .env may set only API keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY); to use the rest, set them in your shell or pass --env-file ${join(dir, '.env')}`,
    ]);
  });

  it('says nothing when the file holds only keys and variables Bridle does not read', () => {
    writeFileSync(join(dir, '.env'), 'OPENAI_API_KEY=k\nDEBUG=1\n');
    const { warnings, env } = load([dir]);
    expect(warnings).toEqual([]);
    expect(env).toEqual({ OPENAI_API_KEY: 'k' });
  });

  it('warns once for two folders (working directory and workspace), naming each file', () => {
    mkdirSync(join(dir, 'ws'));
    writeFileSync(join(dir, '.env'), 'BRIDLE_MODEL=x\n');
    writeFileSync(join(dir, 'ws', '.env'), 'PORT=1\nOPENAI_API_KEY=from-ws\n');
    const { warnings, env } = load([dir, join(dir, 'ws')]);
    expect(env).toEqual({ OPENAI_API_KEY: 'from-ws' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`ignored BRIDLE_MODEL in ${join(dir, '.env')}; PORT in ${join(dir, 'ws', '.env')}:`);
  });

  it('reads a folder given twice (-w . in the working directory, or through a symlink) once', () => {
    writeFileSync(join(dir, '.env'), 'PORT=1\n');
    symlinkSync(dir, join(dir, 'alias'));
    const { warnings } = load([dir, dir, join(dir, 'alias')]);
    expect(warnings).toEqual([expect.stringMatching(/^bridle: ignored PORT in [^;]*: a folder's/)]);
  });

  it('skips a file already loaded whole by --env-file', () => {
    writeFileSync(join(dir, '.env'), 'BRIDLE_MODEL=x\n');
    expect(load([dir], {}, [join(dir, '.env')]).warnings).toEqual([]);
  });

  it('refuses a .env symlinked outside the folder, reads one symlinked inside', () => {
    const outside = mkdtempSync(join(tmpdir(), 'bridle-outside-'));
    try {
      writeFileSync(join(outside, 'secrets'), 'OPENAI_API_KEY=sk-outside\n');
      mkdirSync(join(dir, 'repo'));
      symlinkSync(join(outside, 'secrets'), join(dir, 'repo', '.env'));
      const refused = load([join(dir, 'repo')]);
      expect(refused.env).toEqual({});
      expect(refused.warnings).toEqual([
        `bridle: ${join(dir, 'repo', '.env')} was not read: it is a symlink to ${join(outside, 'secrets')}, outside the folder ${join(dir, 'repo')}`,
      ]);
      writeFileSync(join(dir, 'repo', 'keys.env'), 'OPENAI_API_KEY=sk-inside\n');
      rmSync(join(dir, 'repo', '.env'));
      symlinkSync('keys.env', join(dir, 'repo', '.env'));
      expect(load([join(dir, 'repo')]).env).toEqual({ OPENAI_API_KEY: 'sk-inside' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('never blocks on a FIFO or reads a folder named .env; a dangling symlink is no file', () => {
    execFileSync('mkfifo', [join(dir, '.env')]);
    expect(load([dir]).warnings).toEqual([`bridle: ${join(dir, '.env')} was not read: it is not a regular file`]);
    rmSync(join(dir, '.env'));
    mkdirSync(join(dir, '.env'));
    expect(load([dir]).warnings[0]).toContain('it is not a regular file');
    rmSync(join(dir, '.env'), { recursive: true });
    symlinkSync(join(dir, 'missing'), join(dir, '.env'));
    expect(load([dir]).warnings).toEqual([]);
  });

  it('shows a folder name with control characters escaped', () => {
    const odd = join(dir, 'a\nb\u001b[31m');
    mkdirSync(odd);
    writeFileSync(join(odd, '.env'), 'HOST=0.0.0.0\n');
    const { warnings } = load([odd]);
    expect(warnings[0]).toContain(JSON.stringify(join(odd, '.env')));
    expect(warnings[0]).not.toContain('\u001b');
    expect(warnings[0]).not.toContain('\n');
  });
});
