import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// Two test files at once, not one per core less one (vitest's default, one on this 2-core machine): these
// tests mostly wait on the `bridle` processes and local servers they start (the suite used 240 s of CPU in
// 550 s of wall time at load 22). Every file uses its own ports, temp folders, config folders and stores, so
// files can run side by side. A test here runs up to a dozen whole CLI processes one after another, so its
// time limit is a minute: on a loaded machine 20 s was reached by tests that were not stuck.
// Each file gets a fresh module graph (vitest's default isolation). Shared graphs (`isolate: false`) saved no
// CPU here (the suite's CPU is the `bridle` processes it starts) and broke a file at random: marked-terminal's
// node-emoji got `char-regex` through another file's interop ("charRegex is not a function").
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { maxWorkers: 2, testTimeout: 60_000, hookTimeout: 60_000 } }),
);
