import type { JsonSchema } from '@bridle/protocol';
import { validate } from '@bridle/registry';
import { preview } from './shorten';
import type { SyncScorer } from './types';

/** Schemas kept by their JSON text, so each case's equal copy reuses one compiled validator. */
const MAX_CANONICAL = 256;
const canonical = new Map<string, JsonSchema>();

/**
 * The first schema seen with this JSON text: every JSONL line parses into its own object, and the registry
 * compiles once per schema object (about a millisecond each), so 1,000 cases with one schema compiled once.
 */
function canonicalSchema(schema: JsonSchema): JsonSchema {
  const key = JSON.stringify(schema);
  const known = canonical.get(key);
  if (known !== undefined) return known;
  if (canonical.size >= MAX_CANONICAL) canonical.delete(canonical.keys().next().value as string);
  canonical.set(key, schema);
  return schema;
}

/**
 * `jsonSchema(schema?)`: 1 when the run's structured output (or, without one, its answer parsed as JSON,
 * a fenced ```json block allowed) is valid against the schema (default: the case's `expected.json`), else 0
 * with the first validation errors. Does not apply to a case without a schema.
 */
export function jsonSchema(schema?: JsonSchema): SyncScorer {
  return {
    name: 'jsonSchema',
    score(run, testCase) {
      const given = schema ?? testCase.expected?.json;
      if (given === undefined) return undefined;
      let value = run.output;
      if (value === undefined) {
        const text = (run.answer ?? '').trim();
        const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
        try {
          value = JSON.parse(fenced ? (fenced[1] as string) : text);
        } catch {
          return { score: 0, reason: `the answer is not JSON: ${preview(run.answer ?? '')}` };
        }
      }
      const errors = validate(value, canonicalSchema(given));
      if (errors.length === 0) return { score: 1, reason: 'the output is valid against the schema' };
      return { score: 0, reason: `the output is not valid: ${errors.slice(0, 3).join('; ')}` };
    },
  };
}
