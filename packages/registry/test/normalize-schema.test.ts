import { describe, expect, test } from 'vitest';
import { validate } from '../src/index';
import { normalizeSchema } from '../src/normalize-schema';

describe('schemas that Ajv alone gets wrong', () => {
  test('a property named "__proto__" is validated and counts as declared', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"number"},"name":{"type":"string"}},"additionalProperties":false}',
    );
    expect(validate(JSON.parse('{"__proto__": 1, "name": "x"}'), schema)).toEqual([]);
    expect(validate(JSON.parse('{"__proto__": "one"}'), schema)).toEqual(['$.__proto__: must be number, got "one"']);
    expect(validate(JSON.parse('{"\\u005f_proto__": "one"}'), schema)).toEqual([
      '$.__proto__: must be number, got "one"',
    ]);
    expect(validate({}, schema)).toEqual([]);
    expect(validate({ other: 1 }, schema)).toEqual(['$.other: unknown property; allowed properties: "name"']);
  });

  test('an existing ^__proto__$ pattern is kept alongside', () => {
    const schema = JSON.parse(
      '{"properties":{"__proto__":{"type":"number"}},"patternProperties":{"^__proto__$":{"minimum":5}}}',
    );
    expect(validate(JSON.parse('{"__proto__": 3}'), schema)).toEqual(['$.__proto__: must be >= 5']);
  });

  test('nested schemas are rewritten too, and the input schema is never mutated', () => {
    const text =
      '{"$defs":{"d":{"properties":{"__proto__":{"const":1}}}},"items":{"$ref":"#/$defs/d"},"anyOf":[{"enum":[]},true]}';
    const schema = JSON.parse(text);
    const normalized = normalizeSchema(schema);
    expect(JSON.stringify(schema)).toBe(text);
    expect(normalized).not.toBe(schema);
    expect(JSON.stringify(normalized)).toBe(
      '{"$defs":{"d":{"properties":{},"patternProperties":{"^__proto__$":{"const":1}}}},"items":{"$ref":"#/$defs/d"},"anyOf":[{"allOf":[false]},true]}',
    );
    expect(validate([JSON.parse('{"__proto__": 2}')], schema)).toEqual(['$[0].__proto__: must be 1']);
  });

  test('schemas that need nothing are returned as they are', () => {
    const schema = { type: 'object', properties: { a: { enum: [1] } } };
    expect(normalizeSchema(schema)).toBe(schema);
  });

  test('an empty enum matches nothing', () => {
    expect(validate(1, { enum: [] })).toEqual(['$: no value is allowed here']);
    expect(validate(null, { enum: [], allOf: [true] })).toEqual(['$: no value is allowed here']);
  });
});

test('a deep chain of rewrites stays linear', () => {
  let schema: Record<string, unknown> = JSON.parse('{"properties":{"__proto__":{"type":"number"}}}');
  for (let level = 0; level < 100; level++) schema = { properties: { a: schema } };
  const normalized = normalizeSchema(schema);
  expect(normalized).not.toBe(schema);
  let value: unknown = JSON.parse('{"__proto__": "x"}');
  for (let level = 0; level < 100; level++) value = { a: value };
  expect(validate(value, schema)[0]).toMatch(/\.__proto__: must be number, got "x"$/);
});

test('an embedded resource whose $ref points into its own $defs compiles and validates', () => {
  const schema = {
    $id: 'https://example.com/root.json',
    properties: {
      foo: {
        $id: 'inner.json',
        $defs: { inner: { properties: { bar: { type: 'string' } } } },
        $ref: '#/$defs/inner',
      },
    },
    $ref: 'inner.json',
  };
  expect(validate({ foo: { bar: 'a' }, bar: 'b' }, schema)).toEqual([]);
  expect(validate({ foo: { bar: 1 }, bar: 'b' }, schema)).toEqual(['$.foo.bar: must be string, got number 1']);
  expect(validate({ foo: { bar: 'a' }, bar: 2 }, schema)).toEqual(['$.bar: must be string, got number 2']);
  const normalized = normalizeSchema(schema) as { properties: { foo: Record<string, unknown> } };
  expect(normalized.properties.foo.$ref).toBeUndefined();
  expect(normalized.properties.foo.allOf).toEqual([{ $ref: '#/$defs/inner' }]);
  expect(schema.properties.foo.$ref).toBe('#/$defs/inner');
});
