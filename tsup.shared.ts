import type { Options } from 'tsup';

/** One build recipe for every package: ESM + CJS + `.d.ts`, Node 20. */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    // TS 6 deprecates the `baseUrl` tsup injects for the d.ts build.
    dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: true,
    ...overrides,
  };
}
