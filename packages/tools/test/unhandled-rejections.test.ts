import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const PACKAGE = join(import.meta.dirname, '..');

// Issue 15: no failure may become an unhandled rejection or an unheard 'error' event (a server would die).
// Every tool's failure paths run in a child process with Node's default `--unhandled-rejections=throw`.
it('every failure path of every tool is a tool error, never an unhandled rejection or error event', () => {
  const child = spawnSync(
    process.execPath,
    [
      '--unhandled-rejections=throw',
      '--conditions=@bridle/source',
      '--import',
      'tsx',
      'test/fixtures/failure-paths.mts',
    ],
    { cwd: PACKAGE, encoding: 'utf8', timeout: 120_000 },
  );
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  const lines = child.stdout.trim().split('\n');
  expect(lines.at(-1)).toBe('done');
  expect(lines.filter((line) => line.startsWith('ok '))).toHaveLength(17);
});
