import { bundleFixtures } from '../../../vitest.fixtures';

// The TypeScript processes the tests start, bundled once per run (a start through tsx cost 1.3-1.7 s of CPU).
export default bundleFixtures(`${import.meta.dirname}/..`, [
  'test/servers/serve-workspace.mts',
  'test/conformance/client.mts',
]);
