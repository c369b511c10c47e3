// Runs every README example marked runnable (a fenced block opened with ```ts run or ```js run), so the
// READMEs stay true. Each block runs as an ES module inside its package's folder (so the package's own
// dependencies resolve), on TypeScript sources through tsx and the `@bridle/source` export condition.
// Usage: node scripts/readme-examples.mjs [README paths...]   (default: the root and every package README)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const readmes =
  process.argv.length > 2
    ? process.argv.slice(2).map((file) => path.resolve(file))
    : [
        path.join(root, 'README.md'),
        ...['packages', 'apps'].flatMap((group) =>
          fs
            .readdirSync(path.join(root, group))
            .map((name) => path.join(root, group, name, 'README.md'))
            .filter((file) => fs.existsSync(file)),
        ),
      ];

function examples(text) {
  const blocks = [];
  const pattern = /^```(ts|js) run[^\n]*\n([\s\S]*?)^```\s*$/gm;
  for (const match of text.matchAll(pattern)) {
    blocks.push({ lang: match[1], code: match[2], line: text.slice(0, match.index).split('\n').length });
  }
  return blocks;
}

let ran = 0;
const failed = [];
for (const readme of readmes) {
  const dir = path.dirname(readme);
  for (const { lang, code, line } of examples(fs.readFileSync(readme, 'utf8'))) {
    const file = path.join(dir, `.readme-example-${line}.${lang === 'ts' ? 'mts' : 'mjs'}`);
    fs.writeFileSync(file, code);
    const result = spawnSync(process.execPath, ['--conditions=@bridle/source', '--import', 'tsx', file], {
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
