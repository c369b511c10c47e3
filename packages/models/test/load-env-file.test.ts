import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadEnvFile } from '../src/load-env-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-envfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loadEnvFile', () => {
  it('loads every variable of the file the user named, never overriding the shell', () => {
    writeFileSync(
      join(dir, 'my.env'),
      'OPENAI_BASE_URL=http://mine/v1\nexport BRIDLE_MODEL="openai:gpt-4.1"\nOPENAI_API_KEY=sk-file\nA=1\n=novar\nD="multi\nline"\n',
    );
    const env: Record<string, string | undefined> = { OPENAI_API_KEY: 'sk-shell' };
    expect(loadEnvFile(join(dir, 'my.env'), { env })).toEqual({
      path: join(dir, 'my.env'),
      loaded: ['OPENAI_BASE_URL', 'BRIDLE_MODEL', 'A', 'D'],
      skipped: ['OPENAI_API_KEY'],
    });
    expect(env).toEqual({
      OPENAI_API_KEY: 'sk-shell',
      OPENAI_BASE_URL: 'http://mine/v1',
      BRIDLE_MODEL: 'openai:gpt-4.1',
      A: '1',
      D: 'multi\nline',
    });
  });

  it('a missing file is a ConfigError naming it', () => {
    let caught: unknown;
    try {
      loadEnvFile(join(dir, 'nope.env'), { env: {} });
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      `Cannot read the --env-file ${join(dir, 'nope.env')}: no such file. Give the path of an existing .env file.`,
    );
  });
});
