import { ConfigError, type Tool } from '@bridle/protocol';
import { describe, expect, test } from 'vitest';
import { compileSchema, ToolRegistry, UNTRUSTED_SCHEMA, validate } from '../src/index';

// `^(a+)+$` backtracks exponentially on RegExp: 30 a's and a "!" take seconds, 50 take days.
const CATASTROPHIC = '^(a+)+$';
const LONG_INPUT = `${'a'.repeat(100_000)}!`;

function tool(parameters: Record<string, unknown>, untrusted: boolean): Tool {
  const base: Tool = { name: 'hostile', description: 'From an MCP server', parameters, execute: () => 'ran' };
  return untrusted ? Object.assign(base, { [UNTRUSTED_SCHEMA]: true }) : base;
}

describe('schemas from an untrusted source: patterns on a linear-time engine', () => {
  test('a catastrophic pattern finishes on a long input, and still means what it says', () => {
    const schema = { type: 'string', pattern: CATASTROPHIC };
    expect(validate(LONG_INPUT, schema, { untrusted: true })).toEqual([`$: must match pattern "${CATASTROPHIC}"`]);
    expect(validate('a'.repeat(100_000), schema, { untrusted: true })).toEqual([]);
  });

  test('patternProperties and propertyNames too', () => {
    const schema = {
      type: 'object',
      patternProperties: { [CATASTROPHIC]: { type: 'number' } },
      propertyNames: { pattern: '^(a|aa)+$|^x' },
    };
    const check = compileSchema(schema, { untrusted: true });
    const key = `${'a'.repeat(50_000)}!`;
    expect(check({ [key]: 1 })).toEqual([
      `$: property name "${key}": must match pattern "^(a|aa)+$|^x"`,
      `$: property name "${key}" is invalid`,
    ]);
    expect(check({ aaaa: 'not a number' })).toEqual(['$.aaaa: must be number, got "not a number"']);
    expect(check({ aaaa: 4, x1: true })).toEqual([]);
  });

  test('a tool marked UNTRUSTED_SCHEMA validates its arguments on the linear engine', () => {
    const registry = new ToolRegistry([
      tool({ type: 'object', properties: { text: { type: 'string', pattern: CATASTROPHIC } } }, true),
    ]);
    expect(registry.validate('hostile', { text: LONG_INPUT })).toEqual({
      ok: false,
      errors: [`$.text: must match pattern "${CATASTROPHIC}"`],
    });
    expect(registry.validate('hostile', { text: 'aaa' })).toEqual({ ok: true, value: { text: 'aaa' } });
  });

  test.each([
    ['lookahead', '^(?=a)a+$'],
    ['lookbehind', '(?<!a)b'],
    ['a backreference', '^(a)\\1$'],
    ['a repeat count over 1000', '^a{1001}$'],
  ])('%s is refused at registration, naming the tool and the pattern', (_, pattern) => {
    const parameters = { type: 'object', properties: { text: { type: 'string', pattern } } };
    expect(() => new ToolRegistry([tool(parameters, true)])).toThrow(ConfigError);
    expect(() => new ToolRegistry([tool(parameters, true)])).toThrow(
      `Tool "hostile": parameters could not be compiled: pattern ${JSON.stringify(pattern)} cannot run on the linear-time engine`,
    );
    expect(() => validate('x', { pattern }, { untrusted: true })).toThrow(ConfigError);
    // Schemas the application wrote itself keep JavaScript's RegExp, lookaround included.
    expect(new ToolRegistry([tool(parameters, false)]).has('hostile')).toBe(true);
  });

  test('ECMAScript spellings mean on the linear engine what they mean in RegExp', () => {
    const cases: [string, string, boolean][] = [
      ['^caf\\u00e9$', 'café', true],
      ['^\\u{1F600}$', '😀', true],
      ['^\\cJ$', '\n', true],
      ['^\\p{Letter}+$', 'Ωmega', true],
      ['^\\p{Lu}$', 'a', false],
      ['^\\s$', '\u00a0', true],
      ['^[\\s]$', '\u2028', true],
      ['^\\S$', '\u3000', false],
      ['^.$', '\r', false],
      ['^.$', '😀', true],
      ['^[^]$', '\n', true],
      ['^a[]$', 'a', false],
      ['^[[]$', '[', true],
      ['^\\d+$', '١٢', false],
      ['^(?<year>\\d{4})$', '2026', true],
      ['^a$', 'a\n', false],
    ];
    for (const [pattern, input, matches] of cases) {
      const native = validate(input, { pattern }).length === 0;
      const linear = validate(input, { pattern }, { untrusted: true }).length === 0;
      expect({ pattern, input, native, linear }).toEqual({ pattern, input, native: matches, linear: matches });
    }
  });

  test('two patterns of one schema are kept apart', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } },
    };
    expect(validate({ a: 'aa', b: 'bb' }, schema, { untrusted: true })).toEqual([]);
    expect(validate({ a: 'bb', b: 'aa' }, schema, { untrusted: true })).toEqual([
      '$.a: must match pattern "^a+$"',
      '$.b: must match pattern "^b+$"',
    ]);
  });
});

describe('uniqueItems in linear time, for every schema (the array is data)', () => {
  const schema = { type: 'array', uniqueItems: true };
  // Ajv's own check compares every pair: 40,000 distinct objects took minutes.
  const distinct = Array.from({ length: 40_000 }, (_, index) => ({ id: index }));

  test('40,000 distinct objects get their answer', () => {
    expect(validate(distinct, schema)).toEqual([]);
    expect(validate([...distinct, { id: 39_999 }], schema, { untrusted: true })).toEqual([
      '$: must NOT have duplicate items (items ## 39999 and 40000 are identical)',
    ]);
  });

  test('equal as JSON Schema says: key order does not count, 1 and 1.0 are one number, 0 and false differ', () => {
    expect(
      validate(
        [
          { a: 1, b: [2] },
          { b: [2], a: 1 },
        ],
        schema,
      ),
    ).toEqual(['$: must NOT have duplicate items (items ## 0 and 1 are identical)']);
    expect(validate([1, 1.0], schema)).toEqual(['$: must NOT have duplicate items (items ## 0 and 1 are identical)']);
    expect(validate([0, false, '0', null, [], {}], schema)).toEqual([]);
    expect(validate([1, 1], { type: 'array', uniqueItems: false })).toEqual([]);
  });
});

describe('schemas from an untrusted source: branches that multiply', () => {
  /** `anyOf` of two `$ref`s to the next level, `depth` levels: 2^depth evaluations of one value. */
  function doubling(depth: number) {
    const defs: Record<string, unknown> = {};
    for (let level = 0; level < depth; level++) {
      const next = { $ref: `#/$defs/d${level + 1}` };
      defs[`d${level}`] = { anyOf: [next, next] };
    }
    defs[`d${depth}`] = { type: 'string' };
    return { type: 'object', properties: { x: { $ref: '#/$defs/d0' } }, $defs: defs };
  }

  test('2^40 evaluations of one value are refused at compile time, naming the tool', () => {
    expect(() => new ToolRegistry([tool(doubling(40), true)])).toThrow(
      'Tool "hostile": parameters is too complex for a schema from an untrusted source: one value would be checked along more than 10000 paths',
    );
    expect(() => compileSchema(doubling(40), { untrusted: true })).toThrow(ConfigError);
  });

  test('recursion that doubles over the nesting of the value: that value is refused before Ajv runs', () => {
    const branch = { type: 'object', properties: { a: { $ref: '#/$defs/n' } } };
    const schema = { $defs: { n: { anyOf: [branch, branch] } }, $ref: '#/$defs/n' };
    const nested = (depth: number) => {
      let value: unknown = {};
      for (let level = 0; level < depth; level++) value = { a: value };
      return value;
    };
    // 2^40 checks of the innermost value on Ajv.
    expect(validate(nested(40), schema, { untrusted: true })).toEqual([
      "$: could not be validated: checking this value against the schema would take more than 20820 steps (the schema's branches multiply over the value's nesting); send a smaller, less deeply nested value",
    ]);
    expect(validate(nested(3), schema, { untrusted: true })).toEqual([]);
    // A big value of a plain recursive schema stays within its budget.
    const list = { type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] }, n: {} } };
    let chain: unknown = null;
    for (let index = 0; index < 200; index++) chain = { n: index, next: chain };
    expect(validate(chain, list, { untrusted: true })).toEqual([]);
  });

  test('schemas of real size, recursive ones included, are accepted', () => {
    expect(validate({ x: 'a' }, doubling(8), { untrusted: true })).toEqual([]);
    const tree = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#' } },
        parent: { anyOf: [{ $ref: '#' }, { type: 'null' }] },
      },
    };
    expect(validate({ name: 'a', children: [{ name: 'b', parent: null }] }, tree, { untrusted: true })).toEqual([]);
    const chain: Record<string, unknown> = {};
    for (let index = 0; index < 20_000; index++) chain[`c${index}`] = { $ref: `#/$defs/c${index + 1}` };
    chain.c20000 = { type: 'string' };
    expect(() => compileSchema({ $ref: '#/$defs/c0', $defs: chain }, { untrusted: true })).toThrow(ConfigError);
  });
});
