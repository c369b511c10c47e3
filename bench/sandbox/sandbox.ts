/**
 * Cost of starting a sandboxed command: `bash -c true` run plainly (spawn, no sandbox), through bwrap
 * with the sandbox's arguments but no workspace walk, and through `sandbox.run` (walk of the workspace for
 * protected paths before and after, control groups when writable, bwrap, bash). Also the walk alone on a
 * workspace of about 2,000 files. Median and p95 wall time of sequential runs, in milliseconds.
 * Run: pnpm bench sandbox   (needs bubblewrap)
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBubblewrapSandbox } from '../../packages/sandbox/src/index';

const rounds = 60;

function run(executable: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { stdio: 'ignore', detached: true });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

async function measure(label: string, body: () => Promise<unknown>): Promise<void> {
  for (let index = 0; index < 5; index += 1) await body(); // warm up
  const times: number[] = [];
  for (let index = 0; index < rounds; index += 1) {
    const start = performance.now();
    await body();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const p95 = times[Math.floor(times.length * 0.95)]!;
  console.log(`${label.padEnd(62)} median ${median.toFixed(1).padStart(6)} ms   p95 ${p95.toFixed(1).padStart(6)} ms`);
}

const base = await mkdtemp(join(tmpdir(), 'bridle-bench-sandbox-'));
const small = join(base, 'small');
const large = join(base, 'large');
await mkdir(join(small, '.git'), { recursive: true });
for (let folder = 0; folder < 40; folder += 1) {
  await mkdir(join(large, `src${folder}`), { recursive: true });
  for (let file = 0; file < 50; file += 1) await writeFile(join(large, `src${folder}`, `f${file}.ts`), '');
}
await mkdir(join(large, '.git'), { recursive: true });

await measure('plain spawn: bash -c true (no sandbox)', () => run('bash', ['-c', 'true']));
await measure('bwrap (same namespaces and mounts): bash -c true', () =>
  run('bwrap', [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/run',
    '--bind',
    small,
    small,
    '--ro-bind',
    join(small, '.git'),
    join(small, '.git'),
    '--chdir',
    small,
    'bash',
    '-c',
    'true',
  ]),
);
const sandbox = await openBubblewrapSandbox({ root: small });
await measure(`sandbox.run bash -c true (1-entry workspace, bounds: ${sandbox.bounds})`, () =>
  sandbox.run({ argv: ['bash', '-c', 'true'] }),
);
const big = await openBubblewrapSandbox({ root: large });
await measure(`sandbox.run bash -c true (2,041-entry workspace, bounds: ${big.bounds})`, () =>
  big.run({ argv: ['bash', '-c', 'true'] }),
);
const opened = performance.now();
await openBubblewrapSandbox({ root: small });
console.log(
  `${'openBubblewrapSandbox (checks and one probe command)'.padEnd(62)} ${(performance.now() - opened).toFixed(1)} ms`,
);
await rm(base, { recursive: true, force: true });
