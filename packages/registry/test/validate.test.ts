import { ConfigError } from '@bridle/protocol';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { compileSchema, validate, validateAsync } from '../src/index';

const person = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe('validate: results', () => {
  test('valid value gives no errors', () => {
    expect(validate({ name: 'Ada', age: 36, tags: ['x'] }, person)).toEqual([]);
  });

  test('errors are "$.path: message" lines, all of them', () => {
    expect(validate({ name: 1, age: -1, tags: ['ok', 2], extra: true }, person)).toEqual([
      '$.extra: unknown property; allowed properties: "name", "age", "tags"',
      '$.name: must be string, got number 1',
      '$.age: must be >= 0',
      '$.tags[1]: must be string, got number 2',
    ]);
  });

  test('root errors use "$"', () => {
    expect(validate({}, person)).toEqual(['$: missing required property "name"']);
    expect(validate('text', person)).toEqual(['$: must be object, got "text"']);
    expect(validate([], person)).toEqual(['$: must be object, got an array']);
    expect(validate(null, person)).toEqual(['$: must be object, got null']);
  });

  test('keys that are not identifiers are quoted; numeric keys of objects stay keys', () => {
    const schema = { type: 'object', additionalProperties: { type: 'string' } };
    expect(validate({ 'a b': 1, '0': 2 }, schema)).toEqual([
      '$["0"]: must be string, got number 2',
      '$["a b"]: must be string, got number 1',
    ]);
  });

  test('enum and const list what is allowed', () => {
    expect(validate('z', { enum: ['x', 'y', 1] })).toEqual(['$: must be one of "x", "y", 1']);
    expect(validate('z', { const: 'x' })).toEqual(['$: must be "x"']);
  });

  test('boolean schemas', () => {
    expect(validate(1, true)).toEqual([]);
    expect(validate(1, false)).toEqual(['$: no value is allowed here']);
  });

  test('no coercion: "1" is not a number and "true" is not a boolean', () => {
    expect(validate({ n: '1', b: 'true' }, { properties: { n: { type: 'number' }, b: { type: 'boolean' } } })).toEqual([
      '$.n: must be number, got "1"',
      '$.b: must be boolean, got "true"',
    ]);
  });

  test('format is an annotation (draft 2020-12 default), not an assertion', () => {
    expect(validate('not an email', { type: 'string', format: 'email' })).toEqual([]);
  });

  test('errors are capped at maxErrors with a summary line', () => {
    const errors = validate(
      Array.from({ length: 30 }, (_, index) => index),
      { items: { type: 'string' } },
    );
    expect(errors).toHaveLength(21);
    expect(errors[0]).toBe('$[0]: must be string, got number 0');
    expect(errors[20]).toBe('$: 10 more errors not shown; fix the ones above first');
    expect(validate([1, 2, 3], { items: { type: 'string' } }, { maxErrors: 1 })).toEqual([
      '$[0]: must be string, got number 1',
      '$: 2 more errors not shown; fix the ones above first',
    ]);
  });
});

describe('validate: values that are not JSON never throw', () => {
  const open = { type: 'object' };
  test.each([
    ['NaN', { x: Number.NaN }, '$.x: NaN is not valid JSON; use a finite number or null'],
    ['Infinity', { x: Number.POSITIVE_INFINITY }, '$.x: Infinity is not valid JSON; use a finite number or null'],
    [
      '-Infinity',
      { x: [Number.NEGATIVE_INFINITY] },
      '$.x[0]: -Infinity is not valid JSON; use a finite number or null',
    ],
    ['undefined', { x: undefined }, '$.x: undefined is not valid JSON; omit the property or use null'],
    ['BigInt', { x: 12n }, '$.x: a BigInt (12n) is not valid JSON; use a number or a string'],
    ['function', { x: () => 1 }, '$.x: a function is not valid JSON'],
    ['symbol', { x: Symbol('s') }, '$.x: a symbol is not valid JSON'],
    [
      'Date',
      { x: new Date(0) },
      '$.x: a Date is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object',
    ],
    [
      'Map',
      { x: new Map() },
      '$.x: a Map is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object',
    ],
    [
      'array hole',
      { x: Object.assign(new Array(3), { 0: 1, 2: 3 }) },
      '$.x[1]: undefined is not valid JSON; omit the property or use null',
    ],
  ])('%s', (_label, value, message) => {
    expect(validate(value, open)).toEqual([message]);
  });

  test('at the root', () => {
    expect(validate(undefined, true)).toEqual(['$: undefined is not valid JSON; omit the property or use null']);
    expect(validate(Number.NaN, { type: 'number' })).toEqual(['$: NaN is not valid JSON; use a finite number or null']);
    expect(validate(1n, {})).toEqual(['$: a BigInt (1n) is not valid JSON; use a number or a string']);
  });

  test('cyclic objects and arrays', () => {
    const cyclic: Record<string, unknown> = { a: { b: 1 } };
    (cyclic.a as Record<string, unknown>).self = cyclic;
    expect(validate(cyclic, open)).toEqual([
      '$.a.self: circular reference to an enclosing value; JSON cannot contain cycles',
    ]);
    const list: unknown[] = [];
    list.push(list);
    expect(validate(list, {})).toEqual(['$[0]: circular reference to an enclosing value; JSON cannot contain cycles']);
  });

  test('a shared (non-cyclic) object is fine', () => {
    const shared = { n: 1 };
    expect(validate({ a: shared, b: shared }, open)).toEqual([]);
  });

  test('a class instance holding only primitives', () => {
    class Point {
      x = 1;
    }
    expect(validate(new Point(), open)).toEqual([
      '$: a Point is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object',
    ]);
  });

  test('a getter that throws', () => {
    const value = {
      get x() {
        throw new Error('boom');
      },
    };
    expect(validate(value, open)).toEqual(['$.x: reading this property threw (boom); send plain data']);
  });

  test('a getter that throws only when the validator reads it again', () => {
    let reads = 0;
    const value = {
      get x() {
        reads += 1;
        if (reads > 1) throw new Error('second read');
        return 1;
      },
    };
    expect(validate(value, { properties: { x: { type: 'number' } } })).toEqual([
      '$: could not be validated (second read); send plain, less deeply nested JSON',
    ]);
  });

  test('a proxy whose prototype cannot be read', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('no prototype');
        },
      },
    );
    expect(validate({ x: hostile }, { type: 'object' })).toEqual(['$.x: could not be read (no prototype)']);
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(validate([proxy], {})).toEqual([
      "$[0]: could not be read (Cannot perform 'IsArray' on a proxy that has been revoked)",
    ]);
  });

  test('a proxy whose keys cannot be listed', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    expect(validate({ x: hostile }, open)).toEqual(['$.x: could not be read (no keys)']);
  });

  test('objects with a custom prototype (e.g. { __proto__: x } literals) are not plain JSON', () => {
    const value = Object.create({ inherited: 1 });
    expect(validate(value, open)).toEqual([
      '$: an object with a custom prototype is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object',
    ]);
  });

  test('null-prototype objects are plain', () => {
    const value = Object.assign(Object.create(null), { a: 1 });
    expect(validate(value, { properties: { a: { type: 'number' } } })).toEqual([]);
  });
});

describe('validate: limits', () => {
  test('10,000-deep nesting is an error, not a stack overflow', () => {
    const errors = validate(nested(10_000), { type: 'object' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^\$\.a\.a\.a\.a\.a\.a\.a\.a\.a\.a…\(497 more\)…\.a\.a\.a\.a\.a: nested more than 512 levels deep; send a flatter value$/,
    );
  });

  test('10,000-deep nesting with a recursive schema', () => {
    const tree = {
      $defs: { node: { type: 'object', properties: { a: { $ref: '#/$defs/node' } } } },
      $ref: '#/$defs/node',
    };
    expect(validate(nested(10_000), tree)[0]).toMatch(/nested more than 512 levels deep/);
    expect(validate(nested(500), tree)).toEqual([]);
  });

  test('maxDepth is configurable', () => {
    expect(validate(nested(2), {}, { maxDepth: 3 })).toEqual([]);
    expect(validate(nested(3), {}, { maxDepth: 3 })).toEqual([
      '$.a.a.a: nested more than 3 levels deep; send a flatter value',
    ]);
  });

  test('huge values are refused by count before validation', () => {
    const huge = { items: new Array(200_000).fill(1) };
    expect(validate(huge, { type: 'object' })).toEqual([
      '$: the value holds more than 100000 values (array items and properties); send less data',
    ]);
    expect(validate([1, 2, 3], {}, { maxNodes: 3 })).toEqual([
      '$: the value holds more than 3 values (array items and properties); send less data',
    ]);
    // A flat object counts itself and each property, like any other value.
    expect(validate({ a: 1, b: 2 }, {}, { maxNodes: 3 })).toEqual([]);
    expect(validate({ a: 1, b: 2, c: 3 }, {}, { maxNodes: 3 })).toEqual([
      '$: the value holds more than 3 values (array items and properties); send less data',
    ]);
  });

  test('a large value within limits is validated; errors stay bounded', () => {
    const large = new Array(50_000).fill('x');
    expect(validate(large, { type: 'array', items: { type: 'string' } })).toEqual([]);
    const bad = new Array(50_000).fill(1);
    // Beyond 10,000 values only the first error is collected (allErrors stays bounded).
    expect(validate(bad, { type: 'array', items: { type: 'string' } })).toEqual(['$[0]: must be string, got number 1']);
  });

  test('invalid limits fall back to defaults', () => {
    expect(validate(nested(600), {}, { maxDepth: -1 })[0]).toMatch(/nested more than 512 levels deep/);
  });
});

describe('validate: own properties only, prototype safety', () => {
  test('required "__proto__" / "toString" / "constructor" are not satisfied by inherited members', () => {
    const schema = { type: 'object', required: ['__proto__', 'toString', 'constructor'] };
    expect(validate({}, schema)).toEqual([
      '$: missing required property "__proto__"',
      '$: missing required property "toString"',
      '$: missing required property "constructor"',
    ]);
    expect(validate(JSON.parse('{"__proto__": 1, "toString": 2, "constructor": 3}'), schema)).toEqual([]);
  });

  test('"__proto__" written with JSON unicode escapes is an own key that a schema can forbid', () => {
    const parsed = JSON.parse('{"\\u005f_proto__": {"polluted": true}, "ok": 1}');
    const schema = { type: 'object', properties: { ok: { type: 'number' } }, additionalProperties: false };
    expect(validate(parsed, schema)).toEqual(['$.__proto__: unknown property; allowed properties: "ok"']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('constructor and prototype keys are validated like any other key', () => {
    const schema = {
      type: 'object',
      properties: { constructor: { type: 'string' }, prototype: { type: 'object' } },
      propertyNames: { not: { const: '__proto__' } },
    };
    expect(validate(JSON.parse('{"constructor": 1, "prototype": 2}'), schema)).toEqual([
      '$.constructor: must be string, got number 1',
      '$.prototype: must be object, got number 2',
    ]);
    expect(validate(JSON.parse('{"__proto__": {}}'), schema)).toEqual([
      '$: property name "__proto__": must NOT be valid',
      '$: property name "__proto__" is invalid',
    ]);
    expect(validate({}, schema)).toEqual([]);
  });

  test('the input is never mutated (no defaults, no coercion, no removal)', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number', default: 5 }, b: { type: 'number' } },
      additionalProperties: false,
    };
    const value = { b: '2', extra: 1 };
    const before = structuredClone(value);
    validate(value, schema);
    expect(value).toEqual(before);
    const frozen = Object.freeze({ b: 1 });
    expect(validate(frozen, schema)).toEqual([]);
  });
});

describe('validate: schemas', () => {
  test('an invalid schema throws ConfigError with the reason', () => {
    expect(() => validate(1, { type: 'strng' })).toThrow(ConfigError);
    expect(() => validate(1, { type: 'strng' })).toThrow(
      /is not a valid JSON Schema \(draft 2020-12\): schema\/type must be equal to one of the allowed values/,
    );
    expect(() => validate(1, { minimum: 'x' })).toThrow(/schema\/minimum must be number/);
    expect(() => validate(1, { $ref: '#/$defs/missing' })).toThrow(
      /could not be compiled: can't resolve reference #\/\$defs\/missing/,
    );
    expect(() => validate(1, { pattern: '(' })).toThrow(/could not be compiled: .*Invalid regular expression/);
    expect(() => validate(1, 'schema' as never)).toThrow(
      /must be a JSON Schema object \(or true\/false\), got "schema"/,
    );
    expect(() => validate(1, { type: 'number', x: Number.NaN })).toThrow(
      /is not plain JSON: \$\.x: NaN is not valid JSON/,
    );
  });

  test('unknown keywords are ignored (draft 2020-12)', () => {
    expect(validate(1, { type: 'number', 'x-vendor': true })).toEqual([]);
  });

  test('options.schemas resolves remote $refs by $id', () => {
    const schemas = { 'https://example.com/name.json': { type: 'string', minLength: 1 } };
    const schema = { type: 'object', properties: { name: { $ref: 'https://example.com/name.json' } } };
    expect(validate({ name: '' }, schema, { schemas })).toEqual(['$.name: must NOT have fewer than 1 characters']);
    expect(validate({ name: 'x' }, schema, { schemas })).toEqual([]);
    expect(() => validate({}, schema)).toThrow(/can't resolve reference https:\/\/example.com\/name.json/);
  });

  test('an invalid extra schema is named', () => {
    expect(() => validate(1, {}, { schemas: { 'https://x/y.json': { type: 7 } } })).toThrow(
      /options.schemas\["https:\/\/x\/y.json"\] is not a valid JSON Schema/,
    );
  });

  test('compileSchema compiles once and returns a reusable validator', () => {
    const check = compileSchema(person);
    expect(check({ name: 'x' })).toEqual([]);
    expect(check({ name: 2 })).toEqual(['$.name: must be string, got number 2']);
    expect(() => compileSchema({ type: 'nope' })).toThrow(ConfigError);
  });

  test('Standard Schemas validate with their own validator', async () => {
    const schema = z.object({ n: z.number().int() });
    expect(validate({ n: 1.5 }, schema)).toEqual(['$.n: Invalid input: expected int, received number']);
    expect(validate({ n: Number.NaN }, schema)).toEqual(['$.n: NaN is not valid JSON; use a finite number or null']);
    expect(await validateAsync({ n: 1 }, schema)).toEqual([]);
    const slow = z
      .object({ n: z.number() })
      .refine(async (value) => value.n > 0, { message: 'must be positive', path: ['n'] });
    expect(() => validate({ n: 1 }, slow)).toThrow(/validates asynchronously: call validateAsync/);
    expect(await validateAsync({ n: -1 }, slow)).toEqual(['$.n: must be positive']);
    expect(await validateAsync({ name: 'x' }, person)).toEqual([]);
    expect(await validateAsync({}, person)).toEqual(['$: missing required property "name"']);
  });
});
