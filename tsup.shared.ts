import type { Options } from 'tsup';

/**
 * Declarations are left out when `BRIDLE_BUILD_DTS=0`: the test run builds only what its processes execute
 * (the root `pnpm test` sets it; turbo hashes it, so a later `pnpm build` still writes the `.d.ts` files).
 */
const declarations = process.env.BRIDLE_BUILD_DTS !== '0';

/** One build recipe for every package: ESM + CJS + `.d.ts`, Node 20. */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    // TS 6 deprecates the `baseUrl` tsup injects for the d.ts build.
    dts: declarations && { compilerOptions: { ignoreDeprecations: '6.0' } },
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    ...overrides,
  };
}
