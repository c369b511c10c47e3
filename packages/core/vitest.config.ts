import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The child processes the tests start are bundled once per run (test/bundle-fixtures.ts). The files share
// one module graph (`isolate: false`): the sources load once, not once per file (fake timers are put back
// by each test that takes them).
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { globalSetup: ['test/bundle-fixtures.ts'], isolate: false } }),
);
