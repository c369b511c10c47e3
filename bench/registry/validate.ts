/**
 * Cost of validating tool arguments, per call, and of registering tools.
 * Run: npx tsx bench/registry/validate.ts   (from /work/main)
 *
 * Reports the median time per call (µs) over many calls for: registry.validate on a typical JSON
 * Schema tool (valid and invalid arguments), a zod tool, a raw JSON string, a 1,000-item array, the
 * 10,000-deep refusal, and the one-time cost of building a registry (meta-check + Ajv compile).
 */

import { z } from 'zod';
import { defineTool, ToolRegistry, validate } from '../../packages/registry/src/index';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function measure(label: string, runs: number, fn: () => unknown): void {
  for (let warm = 0; warm < Math.min(runs, 200); warm++) fn();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  console.log(`${label.padEnd(48)} median ${median(times).toFixed(1).padStart(8)} µs`);
}

const readFile = {
  name: 'read_file',
  description: 'Read a file',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1 },
      startLine: { type: 'integer', minimum: 1 },
      endLine: { type: 'integer', minimum: 1 },
    },
    required: ['path'],
    additionalProperties: false,
  },
  execute: () => '',
};
const search = defineTool({
  name: 'search',
  description: 'Search',
  parameters: z.object({ query: z.string().min(1), limit: z.number().int().max(50).default(10) }),
  execute: () => '',
});
const batch = {
  name: 'batch',
  description: 'Many items',
  parameters: {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } } } } },
  },
  execute: () => '',
};
const registry = new ToolRegistry([readFile, search, batch]);
const items = { items: Array.from({ length: 1000 }, (_, id) => ({ id })) };
const deepText = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;

measure('JSON Schema tool, valid args', 20_000, () => registry.validate('read_file', { path: 'a.txt', startLine: 1 }));
measure('JSON Schema tool, invalid args (all errors)', 20_000, () => registry.validate('read_file', { path: 1, x: 2 }));
measure('JSON Schema tool, raw JSON string', 20_000, () => registry.validate('read_file', '{"path":"a.txt"}'));
measure('zod tool, valid args', 20_000, () => registry.validate('search', { query: 'q' }));
measure('1,000-item array argument', 2_000, () => registry.validate('batch', items));
measure('10,000-deep JSON string refused', 200, () => registry.validate('batch', deepText));
measure('validate() with a cached schema', 20_000, () => validate({ path: 'a' }, readFile.parameters));
let fresh = 0;
measure('new ToolRegistry (3 tools, fresh schemas)', 200, () => {
  fresh++;
  return new ToolRegistry([
    { ...readFile, parameters: structuredClone(readFile.parameters) },
    { ...batch, parameters: structuredClone(batch.parameters) },
    { ...readFile, name: `other${fresh % 2}`, parameters: structuredClone(readFile.parameters) },
  ]);
});
