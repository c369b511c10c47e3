// Runs every README example marked runnable (a fenced block opened with ```ts run or ```js run), so the
// READMEs stay true. Each block runs as an ES module inside its package's folder (so the package's own
// dependencies resolve), on TypeScript sources through tsx and the `@bridle/source` export condition.
// Usage: node scripts/readme-examples.mjs [--dist] [README paths...]   (default: the root and every package README)
//   --dist: import the built packages (dist/, as published) instead of the TypeScript sources; build first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runnableBlocks } from './readme-blocks.mjs';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const dist = args.includes('--dist');
const files = args.filter((arg) => arg !== '--dist');
const readmes =
  files.length > 0
    ? files.map((file) => path.resolve(file))
    : [
        path.join(root, 'README.md'),
        ...['packages', 'apps'].flatMap((group) =>
          fs
            .readdirSync(path.join(root, group))
            .map((name) => path.join(root, group, name, 'README.md'))
            .filter((file) => fs.existsSync(file)),
        ),
      ];

let ran = 0;
const failed = [];
for (const readme of readmes) {
  const dir = path.dirname(readme);
  for (const { lang, code, line } of runnableBlocks(fs.readFileSync(readme, 'utf8'))) {
    const file = path.join(dir, `.readme-example-${line}.${lang === 'ts' ? 'mts' : 'mjs'}`);
    fs.writeFileSync(file, code);
    const conditions = dist ? [] : ['--conditions=@bridle/source'];
    const result = spawnSync(process.execPath, [...conditions, '--import', 'tsx', file], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    fs.rmSync(file, { force: true });
    const where = `${path.relative(root, readme)}:${line}`;
    ran++;
    if (result.status === 0) console.log(`ok    ${where}`);
    else {
      failed.push(where);
      console.log(`FAIL  ${where} (exit ${result.status ?? result.signal})\n${result.stdout}${result.stderr}`);
    }
  }
}
console.log(`\n${ran - failed.length} passed, ${failed.length} failed`);
process.exit(failed.length > 0 ? 1 : 0);
