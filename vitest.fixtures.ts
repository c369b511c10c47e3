import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

// Packages with a native addon stay outside the bundles (their loader looks for the .node file beside the
// code) and resolve from the package's own node_modules, where the bundles are written; optional native
// drivers that are not installed (pg-native) are left to fail at their own `require`, as they do unbundled.
const EXTERNAL = ['better-sqlite3', 'pg-native'];

/** The bundle of `fixture` (a path from the package's folder, `test/fixtures/worker.ts`), as written by {@link bundleFixtures}. */
export function fixtureBundle(packageDir: string, fixture: string): string {
  return path.join(packageDir, 'node_modules', '.fixture-bundles', `${fixture.replaceAll(/[\\/]/g, '-')}.mjs`);
}

/**
 * A vitest `globalSetup` that bundles the package's child-process fixtures from sources (`@bridle/source`)
 * with esbuild, once per test run. The tests then start them with plain `node`: a start through tsx
 * transformed the sources' whole module graph in each child (1.3-1.7 s of CPU, against 0.2 s bundled).
 */
export function bundleFixtures(packageDir: string, fixtures: readonly string[]): () => Promise<void> {
  return async () => {
    mkdirSync(path.join(packageDir, 'node_modules', '.fixture-bundles'), { recursive: true });
    await Promise.all(
      fixtures.map((fixture) =>
        build({
          entryPoints: [path.join(packageDir, fixture)],
          outfile: fixtureBundle(packageDir, fixture),
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node20',
          conditions: ['@bridle/source'],
          external: EXTERNAL,
          logLevel: 'warning',
          // Bundled CommonJS dependencies call `require`, which an ES module does not have.
          banner: { js: 'import { createRequire as __cr } from "node:module"; const require = __cr(import.meta.url);' },
        }),
      ),
    );
  };
}
