import { type Random, seededRandom } from '@bridle/testing';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry, validate } from '../src/index';

const NON_JSON: readonly (() => unknown)[] = [
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => undefined,
  () => 7n,
  () => () => 1,
  () => Symbol('s'),
  () => new Date(0),
  () => new Map(),
];
const KEYS = ['a', 'b', '__proto__', 'constructor', 'prototype', 'toString', '0', 'a b', ''];

/** A random value; with `allowNonJson` some leaves are not JSON. Keys are defined, never assigned. */
function randomValue(random: Random, depth: number, allowNonJson: boolean): unknown {
  const roll = random.int(0, depth > 4 ? 5 : 8);
  if (allowNonJson && random.bool(0.05)) return random.pick(NON_JSON)();
  switch (roll) {
    case 0:
      return null;
    case 1:
      return random.bool();
    case 2:
      return random.int(-1000, 1000) / random.pick([1, 3, 10]);
    case 3:
      return random.pick(['', 'x', 'héllo', '{"a":', '\u0000']);
    case 4:
    case 5:
      return random.int(-5, 5);
    case 6:
      return Array.from({ length: random.int(0, 4) }, () => randomValue(random, depth + 1, allowNonJson));
    default: {
      const object: Record<string, unknown> = {};
      for (let index = random.int(0, 4); index > 0; index--) {
        Object.defineProperty(object, random.pick(KEYS), {
          value: randomValue(random, depth + 1, allowNonJson),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
  }
}

const schemas = [
  {},
  { type: 'object' },
  { type: 'object', required: ['__proto__', 'a'], additionalProperties: { type: ['number', 'string'] } },
  { type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'object', propertyNames: { maxLength: 1 } }] } },
  {
    $defs: { any: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/any' } }, { not: { type: 'array' } }] } },
    $ref: '#/$defs/any',
  },
];

describe('fuzz (seed 20260101)', () => {
  test('validate never throws and always answers with "$" lines', () => {
    const random = seededRandom(20260101);
    for (let round = 0; round < 500; round++) {
      const value = randomValue(random, 0, true);
      const snapshot = JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? 'bigint' : item));
      for (const schema of schemas) {
        const errors = validate(value, schema);
        expect(Array.isArray(errors)).toBe(true);
        for (const line of errors) expect(line).toMatch(/^\$/);
      }
      // Never mutated.
      expect(JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? 'bigint' : item))).toBe(snapshot);
    }
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  test('pure JSON always passes the empty schema and survives a JSON round trip identically', () => {
    const random = seededRandom(20260102);
    for (let round = 0; round < 500; round++) {
      const value = randomValue(random, 0, false);
      expect(validate(value, {})).toEqual([]);
      const reparsed = JSON.parse(JSON.stringify(value));
      for (const schema of schemas) expect(validate(reparsed, schema)).toEqual(validate(value, schema));
    }
  });

  test('registry.validate never throws for random arguments and random text', () => {
    const random = seededRandom(20260103);
    const registry = new ToolRegistry([
      {
        name: 'json',
        description: 'j',
        parameters: { type: 'object', properties: { a: { type: 'number' } } },
        execute: () => 1,
      },
      defineTool({
        name: 'zod',
        description: 'z',
        parameters: z.object({ a: z.number().optional() }),
        execute: () => 1,
      }),
    ]);
    const pieces = ['{', '}', '[', ']', '"a"', ':', ',', '1', 'NaN', '"\\u005f_proto__"', ' ', 'null', '"'];
    for (let round = 0; round < 500; round++) {
      const args = random.bool()
        ? randomValue(random, 0, true)
        : Array.from({ length: random.int(0, 12) }, () => random.pick(pieces)).join('');
      for (const name of ['json', 'zod', 'missing']) {
        const result = registry.validate(name, args);
        if (!result.ok) for (const line of result.errors) expect(line).toMatch(/^(\$|Unknown tool: missing\.)/);
      }
    }
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});
