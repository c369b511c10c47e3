import { bundleFixtures } from '../../../vitest.fixtures';

// The child processes the tests start, bundled once per run (see test/crash-child.ts).
export default bundleFixtures(`${import.meta.dirname}/..`, ['test/fixtures/durable-child.ts']);
