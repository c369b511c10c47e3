import { ConfigError } from '@bridle/protocol';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { compileSchema, isStandardSchema, toJsonSchema, validate } from '../src/index';

describe('toJsonSchema', () => {
  test('zod: the input JSON Schema without "~standard" or "$schema"', () => {
    const schema = z.object({ q: z.string().describe('query'), n: z.number().optional() });
    const json = toJsonSchema(schema);
    expect(json).toEqual({
      type: 'object',
      properties: { q: { type: 'string', description: 'query' }, n: { type: 'number' } },
      required: ['q'],
    });
    expect(Object.getOwnPropertyNames(json)).toEqual(['type', 'properties', 'required']);
    expect(toJsonSchema(schema)).toBe(json);
  });

  test('JSON Schema: a frozen plain copy; "__proto__" keys stay own data', () => {
    const original = JSON.parse(
      '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"__proto__":{"type":"string"}}}',
    );
    const json = toJsonSchema(original);
    expect(json).not.toBe(original);
    expect(Object.isFrozen(json)).toBe(true);
    expect(Object.isFrozen(json.properties)).toBe(true);
    expect(json).not.toHaveProperty('$schema');
    const properties = json.properties as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(original.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  test('refuses what is not a schema', () => {
    expect(() => toJsonSchema(null as never)).toThrow(ConfigError);
    expect(() => toJsonSchema('x' as never)).toThrow(
      'Expected a JSON Schema object or a Standard Schema (zod 4, ...), got "x".',
    );
  });
});

describe('isStandardSchema', () => {
  test('recognises zod and look-alikes, never throws', () => {
    expect(isStandardSchema(z.string())).toBe(true);
    expect(isStandardSchema({ '~standard': { version: 1, vendor: 'x', validate: () => ({ value: 1 }) } })).toBe(true);
    expect(isStandardSchema({ type: 'object' })).toBe(false);
    expect(isStandardSchema(null)).toBe(false);
    const hostile = {
      get '~standard'() {
        throw new Error('no');
      },
    };
    expect(isStandardSchema(hostile)).toBe(false);
  });
});

describe('compiled once per schema object', () => {
  test('Ajv compiles a schema once, plus once for the all-errors variant on the first failure', () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    try {
      const schema = { type: 'object', properties: { a: { type: 'number' } } };
      const check = compileSchema(schema);
      for (let round = 0; round < 5; round++) {
        expect(check({ a: round })).toEqual([]);
        expect(validate({ a: round }, schema)).toEqual([]);
      }
      expect(compile).toHaveBeenCalledTimes(1);
      expect(check({ a: 'x' })).toEqual(['$.a: must be number, got "x"']);
      expect(validate({ a: 'y' }, schema)).toEqual(['$.a: must be number, got "y"']);
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });
});
