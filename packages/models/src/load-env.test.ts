import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEnv } from './load-env';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-env-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadEnv', () => {
  it('loads variables that are not set and never overrides those that are', () => {
    writeFileSync(
      join(dir, '.env'),
      '# keys\nOPENAI_API_KEY=sk-file\nexport BRIDLE_MODEL="openai:gpt-4.1"\nHOME_DIR=x y\n',
    );
    const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-shell' };
    const result = loadEnv(dir, { env });
    expect(env).toEqual({ OPENAI_API_KEY: 'sk-shell', BRIDLE_MODEL: 'openai:gpt-4.1', HOME_DIR: 'x y' });
    expect(result).toEqual({
      path: join(dir, '.env'),
      loaded: ['BRIDLE_MODEL', 'HOME_DIR'],
      skipped: ['OPENAI_API_KEY'],
    });
  });

  it('skips a malformed line without losing the lines after it; reads multi-line and commented values', () => {
    writeFileSync(join(dir, '.env'), 'A=1\n=novar\nnoeq\nC=3=4\nD="multi\nline"\nE=x # note\n');
    const env: Record<string, string | undefined> = {};
    loadEnv(dir, { env });
    expect(env).toEqual({ A: '1', C: '3=4', D: 'multi\nline', E: 'x' });
  });

  it('keeps a variable set to the empty string', () => {
    writeFileSync(join(dir, '.env'), 'A=from-file\n');
    const env: Record<string, string | undefined> = { A: '' };
    loadEnv(dir, { env });
    expect(env.A).toBe('');
  });

  it('does nothing without a file', () => {
    const env: Record<string, string | undefined> = {};
    expect(loadEnv(dir, { env })).toEqual({ loaded: [], skipped: [] });
    expect(env).toEqual({});
  });

  it('reports an unreadable file as a ConfigError naming it', () => {
    mkdirSync(join(dir, '.env'));
    let caught: unknown;
    try {
      loadEnv(dir, { env: {} });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toContain(`Cannot read ${join(dir, '.env')}`);
  });
});
