import { spawn, spawnSync } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { hostProcesses, withBubblewrap } from './sandbox-target';

const NOBODY = 65534;
const packageFolder = fileURLToPath(new URL('..', import.meta.url));
const child = fileURLToPath(new URL('./fixtures/rlimit-child.ts', import.meta.url));

/**
 * Whether `nobody` can read this package (and so load tsx from the repository's node_modules). Not when the
 * checkout sits under a folder only root may enter, as in `tools/quickstart-check`'s `mktemp -d` clone.
 */
function nobodyReadsPackage(): boolean {
  if (process.getuid?.() !== 0) return false;
  const check = `require('node:fs').accessSync(${JSON.stringify(join(packageFolder, 'package.json'))})`;
  return spawnSync(process.execPath, ['-e', check], { uid: NOBODY, gid: NOBODY, stdio: 'ignore' }).status === 0;
}
const nobodyReads = nobodyReadsPackage();
if (process.getuid?.() === 0 && !nobodyReads) {
  if (process.env.CI === 'true') throw new Error(`user nobody cannot read ${packageFolder}: the rlimit test needs it.`);
  console.warn(
    `!!! SKIPPED: the rlimit bounds test (user nobody cannot read ${packageFolder}; a parent folder is private)`,
  );
}

// As root the sandbox uses control groups (bounds.test.ts); an ordinary user gets rlimits, tested here by
// running the sandbox as `nobody` (only root can start a process as another user).
withBubblewrap('bounds by rlimits, for a user without control groups (bubblewrap)', () => {
  it.runIf(nobodyReads)(
    'a fork bomb and a memory hog stop at the bounds; node still runs',
    { timeout: 120_000 },
    async () => {
      const workspace = await mkdtemp(join(tmpdir(), 'bridle-sandbox-rlimit-'));
      await chown(workspace, NOBODY, NOBODY);
      try {
        const output = await new Promise<string>((resolve, reject) => {
          const process_ = spawn(
            process.execPath,
            ['--conditions=@bridle/source', '--import', 'tsx', child, workspace],
            {
              cwd: packageFolder,
              uid: NOBODY,
              gid: NOBODY,
              env: { PATH: process.env.PATH ?? '' },
              stdio: ['ignore', 'pipe', 'pipe'],
            },
          );
          let stdout = '';
          let stderr = '';
          process_.stdout.on('data', (chunk) => {
            stdout += chunk;
          });
          process_.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          process_.on('error', reject);
          process_.on('close', (code) =>
            code === 0 ? resolve(stdout) : reject(new Error(`child exit ${code}: ${stderr}`)),
          );
        });
        const seen = JSON.parse(output.trim().split('\n').at(-1)!);
        expect(seen).toMatchObject({ bounds: 'rlimit', node: 'node runs\n' });
        // Under load the bomb may also reach the time limit: that adds a sentence, it does not replace this one.
        expect(seen.bomb).toContain(
          "The sandbox's process bound (32 processes) was reached: starting a process failed.",
        );
        expect(seen.memory).toEqual([
          "The sandbox's memory bound (256 MiB) was reached: a process was refused memory or killed.",
        ]);
        expect(await hostProcesses('bomb() {')).toEqual([]);
      } finally {
        await rm(workspace, { recursive: true, force: true });
      }
    },
  );
});
