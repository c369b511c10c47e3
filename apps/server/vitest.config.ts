import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// Three test files at once, not one per core less one (vitest's default, one on this 2-core machine): these
// tests mostly wait on the processes, servers and browsers they start (the server suite used 120 s of CPU in
// 504 s of wall time with one worker, 345 s with three, at load 17). Every file uses its own ports, temp
// folders, config folders, store prefixes and queue prefixes, so files can run side by side.
//
// The files of a worker share one module graph (`isolate: false`): loading the server's sources once per
// worker, not once per file, was the suite's largest cost (195 s of 62 files' imports, summed). So nothing
// here may rely on a fresh module per file: hooks a helper needs are registered in `test/setup.ts`, which
// runs for every file.
export default mergeConfig(
  sharedConfig,
  defineConfig({ test: { maxWorkers: 3, isolate: false, setupFiles: ['test/setup.ts'] } }),
);
