import { readFile, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

/**
 * The first lines of `dist/bin.js`: a shell and a JavaScript file at once. The shell runs
 * `node -- <this file> <arguments>`; Node reads the rest as JavaScript (it skips the `#!` line, and the second
 * line is a string and a comment). Node itself scans a script's arguments for `--env-file` up to a `--`, and
 * exits 9 before any of Bridle runs when that file is missing (nodejs/node#54232): the `--` leaves
 * `bridle ... --env-file <file>` to Bridle, which names a missing file with exit 2. `env sh` rather than
 * `/bin/sh` because publint checks that a bin starts with `#!/usr/bin/env`; `env -S node --` would need an
 * `env` with `-S` (BusyBox's, in Alpine images, has none). npm's Windows shims would run it with an `sh`.
 */
const BIN_LAUNCHER = '#!/usr/bin/env sh\n":" //; exec node -- "$0" "$@"\n';

/** Replaces the `#!/usr/bin/env node` line that the build kept at the top of `dist/bin.js` (which stays executable). */
async function writeLauncher(): Promise<void> {
  const file = new URL('./dist/bin.js', import.meta.url);
  const code = await readFile(file, 'utf8');
  await writeFile(file, BIN_LAUNCHER + code.slice(code.indexOf('\n') + 1));
}

// `shims` gives the CJS build an `import.meta.url` (used to find demo-project/).
export default defineConfig(
  packageBuild({ entry: ['src/index.ts', 'src/bin.ts'], shims: true, onSuccess: writeLauncher }),
);
