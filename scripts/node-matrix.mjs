// Node versions beyond the one the repository is developed on: the packages claim `node >= 20.19`, so CI
// also runs, on each Node major given (default 22 and 24, fetched from the npm registry as the `node`
// package through `npx -y node@N`):
//   - every README example against the built packages (scripts/readme-examples.mjs --dist: dist/, as
//     published, not the TypeScript sources);
//   - the CLI end-to-end tests (apps/cli/test), which drive the built `bridle` as a real process.
// That Node comes first on PATH, so what the tests spawn as `node` (the demo's `node --test`) is it too.
// Build first (`pnpm build`). Usage: node scripts/node-matrix.mjs [major...]
import fs from 'node:fs';
import path from 'node:path';
import { childEnv, run, script } from './process-group.mjs';

const root = path.resolve(import.meta.dirname, '..');
const majors = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['22', '24'];
const seconds = (from) => `${((Date.now() - from) / 1000).toFixed(1)} s`;

await script(async () => {
  for (const major of majors) {
    if (!/^\d+$/.test(major)) throw new Error(`"${major}" is not a Node major version: pass numbers, e.g. 22 24`);
  }
  const unbuilt = ['packages', 'apps'].flatMap((group) =>
    fs
      .readdirSync(path.join(root, group))
      .map((name) => path.join(group, name))
      .filter((dir) => fs.existsSync(path.join(root, dir, 'package.json')))
      .filter((dir) => !fs.existsSync(path.join(root, dir, 'dist'))),
  );
  if (unbuilt.length > 0) throw new Error(`not built: ${unbuilt.join(', ')}. Run \`pnpm build\` first.`);

  const results = [];
  for (const major of majors) {
    const from = Date.now();
    console.log(`\n== Node ${major}`);
    // npx caches the `node` package; its bin is the real binary, run directly from here on.
    const probe = await run('npx', ['-y', `node@${major}`, '-p', 'process.version + " " + process.execPath'], {
      cwd: root,
      env: childEnv(),
      timeoutMs: 10 * 60_000,
    });
    const [version, binary] = probe.stdout.trim().split('\n').at(-1).split(' ');
    if (!version.startsWith(`v${major}.`)) throw new Error(`npx -y node@${major} ran ${version}`);
    console.log(`   ${version} at ${binary}`);
    const env = childEnv({ PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}` });

    console.log(`-- README examples on the built packages (Node ${version})`);
    await run(binary, [path.join(root, 'scripts', 'readme-examples.mjs'), '--dist'], { cwd: root, env, echo: true });

    console.log(`-- CLI end-to-end tests (Node ${version})`);
    const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
    await run(binary, [vitest, 'run', 'test/'], {
      cwd: path.join(root, 'apps', 'cli'),
      env,
      echo: true,
      timeoutMs: 30 * 60_000,
    });
    results.push(`Node ${version}: README examples (dist) and CLI end-to-end tests passed (${seconds(from)})`);
  }
  console.log(`\n${results.join('\n')}`);
});
