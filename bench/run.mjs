// Runs the benchmarks: each bench/<area>/*.{ts,mjs} is bundled from sources with esbuild (like the published
// build, without tsx's per-function wrappers) and run with `node --expose-gc`, one after the other.
// Usage: pnpm bench [area-or-file-filter] [args...]      e.g. pnpm bench core, pnpm bench load 10 32 5
// Arguments after the filter are passed to each bench it runs (process.argv.slice(2) there).
// Numbers go to stdout; they are not tests and are reported in closing notes, never asserted.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const filter = process.argv[2] ?? '';
const benchArgs = process.argv.slice(3);
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-bench-'));
const files = fs
  .readdirSync(path.join(root, 'bench'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    fs
      .readdirSync(path.join(root, 'bench', dir.name))
      .filter((file) => /\.(ts|mjs)$/.test(file))
      .map((file) => path.join('bench', dir.name, file)),
  )
  .filter((file) => file.includes(filter))
  .sort();

// Packages with a native addon cannot be bundled (their loader looks for the .node file beside the bundle):
// they stay external and resolve through a node_modules link, in the bundles' folder, to the package's real
// folder (found in the workspace package that depends on it).
const NATIVE = ['better-sqlite3'];
for (const name of NATIVE) {
  const owner = ['packages', 'apps']
    .flatMap((group) =>
      fs.readdirSync(path.join(root, group)).map((dir) => path.join(root, group, dir, 'node_modules', name)),
    )
    .find((candidate) => fs.existsSync(candidate));
  if (owner === undefined) continue;
  fs.mkdirSync(path.join(out, 'node_modules'), { recursive: true });
  fs.symlinkSync(fs.realpathSync(owner), path.join(out, 'node_modules', name), 'dir');
}

let failed = 0;
for (const file of files) {
  const bundle = path.join(out, `${file.replaceAll(path.sep, '-')}.mjs`);
  console.log(`\n=== ${file}`);
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'esbuild'),
    [
      file,
      '--bundle',
      '--platform=node',
      '--format=esm',
      '--conditions=@bridle/source',
      '--log-level=warning',
      ...NATIVE.map((name) => `--external:${name}`),
      `--outfile=${bundle}`,
      '--banner:js=import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);',
    ],
    { cwd: root, stdio: 'inherit' },
  );
  const result = spawnSync(process.execPath, ['--expose-gc', bundle, ...benchArgs], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`(${file} exited ${result.status ?? result.signal})`);
  }
}
fs.rmSync(out, { recursive: true, force: true });
process.exit(failed > 0 ? 1 : 0);
