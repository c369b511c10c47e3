import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The files share one module graph (`isolate: false`): the sources load once, not once per file.
export default mergeConfig(sharedConfig, defineConfig({ test: { isolate: false } }));
