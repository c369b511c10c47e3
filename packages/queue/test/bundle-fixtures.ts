import { bundleFixtures } from '../../../vitest.fixtures';

// The worker processes the tests start, bundled once per run (see test/child.ts).
export default bundleFixtures(`${import.meta.dirname}/..`, [
  'test/fixtures/worker.ts',
  'test/fixtures/sub-agent-worker.ts',
  'test/fixtures/zombie-worker.ts',
]);
