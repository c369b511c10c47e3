import { defineConfig } from 'vitest/config';

/** Tests run on TypeScript sources: the `@bridle/source` export condition points at `src/`. */
export const sharedConfig = defineConfig({
  ssr: { resolve: { conditions: ['@bridle/source'] } },
  resolve: { conditions: ['@bridle/source'] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
