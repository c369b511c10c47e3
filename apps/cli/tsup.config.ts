import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

// `shims` gives the CJS build an `import.meta.url` (used to find demo-project/).
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/bin.ts'], shims: true }));
