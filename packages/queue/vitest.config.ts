import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The worker processes the tests start are bundled once per run (test/bundle-fixtures.ts). The files share
// one module graph (`isolate: false`): the sources load once, not once per file.
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { globalSetup: ['test/bundle-fixtures.ts'], isolate: false } }),
);
