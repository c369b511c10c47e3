import { mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// These tests start real MCP servers (Node processes) and wait out real timeouts: on a loaded 2-core
// machine one connect can take several seconds, so the per-test bound is generous. The TypeScript servers and
// clients they start are bundled once per run (test/bundle-fixtures.ts).
export default mergeConfig(sharedConfig, {
  test: { testTimeout: 180_000, hookTimeout: 180_000, globalSetup: ['test/bundle-fixtures.ts'] },
});
