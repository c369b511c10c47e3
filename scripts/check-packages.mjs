// Packs every workspace package the way `pnpm publish` would (publishConfig applied, workspace:* resolved)
// and checks each tarball with publint and @arethetypeswrong/cli. Run after a build: `pnpm check:packages`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-pack-'));
const dirs = ['packages', 'apps'].flatMap((group) =>
  fs
    .readdirSync(path.join(root, group))
    .map((name) => path.join(root, group, name))
    .filter((dir) => fs.existsSync(path.join(dir, 'package.json'))),
);

const failures = [];
const names = new Set(dirs.map((dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).name));
for (const file of fs
  .readdirSync(path.join(root, '.changeset'))
  .filter((f) => f.endsWith('.md') && f !== 'README.md')) {
  const head = fs.readFileSync(path.join(root, '.changeset', file), 'utf8').split('---')[1] ?? '';
  for (const [, name] of head.matchAll(/^\s*["']?([^"':]+)["']?\s*:/gm)) {
    if (names.has(name)) continue;
    failures.push(`.changeset/${file}`);
    console.log(
      `FAIL  changeset ${file} names ${name}, which is not a workspace package (one of: ${[...names].join(', ')})`,
    );
  }
}
for (const dir of dirs) {
  const { name } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const before = new Set(fs.readdirSync(out));
  execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'pipe' });
  const tarball = fs.readdirSync(out).find((file) => !before.has(file));
  const file = path.join(out, tarball);
  for (const [tool, args] of [
    ['publint', ['run', file, '--strict', '--pack', 'false']],
    ['attw', [file, '--format', 'ascii', '--no-emoji']],
  ]) {
    try {
      execFileSync(bin(tool), args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
      console.log(`ok    ${tool.padEnd(7)} ${name}`);
    } catch (error) {
      failures.push(`${name} (${tool})`);
      console.log(`FAIL  ${tool.padEnd(7)} ${name}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  }
}
fs.rmSync(out, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(`\n${failures.length} check(s) failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log(`\nall ${dirs.length} packages pass publint and attw`);
