import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '..', 'src');

describe('@opentelemetry/api stays optional', () => {
  it('is imported by the package sources with `import type` only, so nothing loads it at run time', () => {
    const shipped = readdirSync(src).filter((file) => file.endsWith('.ts') && !file.includes('test'));
    const runtimeImports = shipped.flatMap((file) =>
      [
        ...readFileSync(join(src, file), 'utf8').matchAll(/^(?:import|export)(?! type )[^;]*'@opentelemetry\/[^']*'/gm),
      ].map((match) => `${file}: ${match[0]}`),
    );
    expect(shipped).toContain('otel-sink.ts');
    expect(runtimeImports).toEqual([]);
  });
});
