import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

// shims: `import.meta.url` in the CJS build too (the inspector's assets are found beside the bundle).
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/bin.ts'], shims: true }));
