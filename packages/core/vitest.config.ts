import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The child processes the tests start are bundled once per run (test/bundle-fixtures.ts).
export default mergeConfig(sharedConfig, defineConfig({ test: { globalSetup: ['test/bundle-fixtures.ts'] } }));
