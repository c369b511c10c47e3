import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The sample project shipped with the package (`demo-project/` beside `dist/` and `src/`), found by
 * walking up from this module, whether it runs from `dist/` or from `src/`.
 */
export function demoProjectDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    const candidate = join(dir, 'demo-project');
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error(
    'The demo project is missing from this installation (expected a demo-project folder next to dist/). Reinstall bridle.',
  );
}
