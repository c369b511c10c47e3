import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@bridle/protocol';
import { lock } from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTrustList, updateTrustList } from '../src/trust-store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-trust-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function corruptError(text: string): string {
  const path = join(dir, 'trusted.json');
  writeFileSync(path, text);
  try {
    readTrustList(path);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('trusted.json', () => {
  it('is empty when missing; written with mode 600 in a folder of mode 700', async () => {
    const path = join(dir, 'bridle', 'trusted.json');
    expect(readTrustList(path)).toEqual({ version: 1, folders: {} });
    await updateTrustList(path, (list) => {
      list.folders['/repo'] = { digest: 'sha256:1', trusted: true, decidedAt: '2026-01-01T00:00:00.000Z' };
    });
    expect(readTrustList(path).folders['/repo']).toEqual({
      digest: 'sha256:1',
      trusted: true,
      decidedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'bridle')).mode & 0o777).toBe(0o700);
  });

  it('a corrupt or odd file is a clear error naming it, never "trust everything", and is not overwritten', async () => {
    const path = join(dir, 'trusted.json');
    expect(corruptError('{"version":1,"folders":{"/a":')).toMatch(
      new RegExp(
        `^The trusted folders list ${path} is not valid JSON \\(.*\\)\\. Nothing in it is trusted until it is fixed`,
      ),
    );
    expect(corruptError('true')).toContain('must hold an object, not boolean true');
    expect(corruptError('{"version":2,"folders":{}}')).toContain('has version number 2, expected 1');
    expect(corruptError('{"version":1,"folders":{"/a":{"digest":"x","trusted":"yes","decidedAt":"t"}}}')).toContain(
      'has a bad entry for /a',
    );
    writeFileSync(path, '{broken');
    await expect(updateTrustList(path, () => {})).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(path, 'utf8')).toBe('{broken');
  });

  it('loses nothing when 6 processes add folders at once (lock + atomic rename)', async () => {
    const path = join(dir, 'trusted.json');
    const module = fileURLToPath(new URL('../src/trust-store.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../../node_modules/tsx/dist/esm/index.mjs', import.meta.url));
    const script = `
      const { updateTrustList } = await import(${JSON.stringify(module)});
      for (let i = 0; i < 5; i++) {
        await updateTrustList(${JSON.stringify(path)}, (list) => {
          list.folders['/p' + process.argv[1] + '/' + i] = { digest: 'd', trusted: true, decidedAt: 't' };
        });
      }`;
    const runs = Array.from(
      { length: 6 },
      (_, index) =>
        new Promise<number | null>((resolve) => {
          const child = spawn(
            process.execPath,
            ['--conditions=@bridle/source', '--import', tsx, '--input-type=module', '-e', script, String(index)],
            {
              stdio: ['ignore', 'inherit', 'inherit'],
            },
          );
          child.on('close', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual(Array(6).fill(0));
    expect(Object.keys(readTrustList(path).folders)).toHaveLength(30);
  }, 120_000);

  it('takes over a lock left by a process that died; waits 10 s for a live one, then names the lock', async () => {
    const path = join(dir, 'trusted.json');
    mkdirSync(`${path}.lock`);
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, minuteAgo, minuteAgo);
    await updateTrustList(path, (list) => {
      list.folders['/a'] = { digest: 'd', trusted: true, decidedAt: 't' };
    });
    expect(Object.keys(readTrustList(path).folders)).toEqual(['/a']);

    const release = await lock(path, { lockfilePath: `${path}.lock`, realpath: false });
    try {
      const error = await updateTrustList(path, () => {}).catch((caught: unknown) => caught);
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(`another bridle process has held ${path}.lock for more than 10s`);
    } finally {
      await release();
    }
    expect(Object.keys(readTrustList(path).folders)).toEqual(['/a']);
  }, 60_000);
});
