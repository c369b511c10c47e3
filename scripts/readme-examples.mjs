// Runs every README example marked runnable (a fenced block opened with ```ts run or ```js run), so the
// READMEs stay true. Each block runs as an ES module inside its package's folder (so the package's own
// dependencies resolve), on TypeScript sources through tsx and the `@bridle/source` export condition.
// Usage: node scripts/readme-examples.mjs [--dist] [README paths...]   (default: the root and every package README)
//   --dist: import the built packages (dist/, as published) instead of the TypeScript sources; build first.
// A block opened with ```ts run needs=redis is skipped with one SKIP line when Redis does not answer at
// BRIDLE_REDIS_URL (or BRIDLE_TEST_REDIS_URL, default redis://127.0.0.1:6379); under CI=true that fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runnableBlocks } from './readme-blocks.mjs';
import { brokenLinks } from './readme-links.mjs';
import { missingServices, redisUrlOf } from './readme-services.mjs';

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
let skipped = 0;
const failed = [];
const trackedNames = new Set(
  spawnSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map((file) => path.basename(file)),
);
for (const readme of readmes) {
  const dir = path.dirname(readme);
  // Links first: a README that points at a file the repository does not have fails like a broken example.
  const where = path.relative(root, readme);
  // Silent when they hold (the output lists the examples); a broken link counts as a failed check.
  const links = brokenLinks(readme, root, trackedNames);
  if (links.length > 0) {
    ran++;
    failed.push(`${where} links`);
    console.log(`FAIL  ${where} links:\n${links.map((problem) => `  ${problem}`).join('\n')}`);
  }
  for (const { lang, code, line, needs } of runnableBlocks(fs.readFileSync(readme, 'utf8'))) {
    const where = `${path.relative(root, readme)}:${line}`;
    const missing = await missingServices(needs, process.env);
    if (missing.length > 0) {
      // Like the packages' service tests: a developer machine without the service skips, CI fails.
      if (process.env.CI === 'true') {
        ran++;
        failed.push(where);
        console.log(`FAIL  ${where}: ${missing.join('; ')} (required when CI=true)`);
      } else {
        skipped++;
        console.log(`SKIP  ${where}: ${missing.join('; ')}`);
      }
      continue;
    }
    const file = path.join(dir, `.readme-example-${line}.${lang === 'ts' ? 'mts' : 'mjs'}`);
    fs.writeFileSync(file, code);
    const conditions = dist ? [] : ['--conditions=@bridle/source'];
    const result = spawnSync(process.execPath, [...conditions, '--import', 'tsx', file], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        NO_COLOR: '1',
        ...(needs.includes('redis') ? { BRIDLE_REDIS_URL: redisUrlOf(process.env) } : {}),
      },
    });
    fs.rmSync(file, { force: true });
    ran++;
    if (result.status === 0) console.log(`ok    ${where}`);
    else {
      failed.push(where);
      console.log(`FAIL  ${where} (exit ${result.status ?? result.signal})\n${result.stdout}${result.stderr}`);
    }
  }
}
console.log(
  `\n${ran - failed.length} passed, ${failed.length} failed${skipped > 0 ? `, ${skipped} skipped (a service is missing)` : ''}`,
);
process.exit(failed.length > 0 ? 1 : 0);
