import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// Every test here starts bubblewrap and real processes (a fork bomb, a 600 MB allocation, a gigabyte through
// a pipe): on a loaded machine (a full `pnpm test` beside other work) that takes several times as long as
// idle. A longer test timeout, never a timing assertion.
export default mergeConfig(sharedConfig, defineConfig({ test: { testTimeout: 60_000, hookTimeout: 60_000 } }));
