import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { closedPort, REDIS_URL, serviceSuite } from './services';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** Runs this package's README example the way `pnpm test` at the root does (scripts/readme-examples.mjs). */
function runExample(env: Record<string, string>) {
  const { CI: _ci, BRIDLE_REDIS_URL: _url, ...rest } = process.env;
  const result = spawnSync(process.execPath, ['scripts/readme-examples.mjs', 'packages/queue/README.md'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...rest, ...env },
    timeout: 90_000,
  });
  return { status: result.status, lines: result.stdout.split('\n').filter((line) => line.trim() !== '') };
}

it('without Redis the README example is skipped with one line saying what is missing', async () => {
  const port = await closedPort();
  const { status, lines } = runExample({ BRIDLE_REDIS_URL: `redis://127.0.0.1:${port}` });
  expect(status).toBe(0);
  expect(lines).toEqual([
    expect.stringMatching(
      new RegExp(
        `^SKIP  packages/queue/README\\.md:8: no Redis at 127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED.*\\); set BRIDLE_REDIS_URL$`,
      ),
    ),
    '0 passed, 0 failed, 1 skipped (a service is missing)',
  ]);
});

it('without Redis under CI=true the README example fails', async () => {
  const port = await closedPort();
  const { status, lines } = runExample({ BRIDLE_REDIS_URL: `redis://127.0.0.1:${port}`, CI: 'true' });
  expect(status).toBe(1);
  expect(lines[0]).toMatch(/^FAIL {2}packages\/queue\/README\.md:8: no Redis at .* \(required when CI=true\)$/);
});

const suite = await serviceSuite('README example (Redis)', {});
suite('the README example with Redis', () => {
  it('runs as written', () => {
    const { status, lines } = runExample({ BRIDLE_REDIS_URL: REDIS_URL });
    expect(lines).toEqual(['ok    packages/queue/README.md:8', '1 passed, 0 failed']);
    expect(status).toBe(0);
  });
});
