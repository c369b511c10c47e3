import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

// Two entries: the public API, and `@bridle/protocol/internal` (helpers shared by the Bridle packages). Both
// formats split shared code into chunks, so the error classes exist once per format: an error made by an
// internal helper is `instanceof` the class the public entry exports.
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/internal.ts'], splitting: true }));
