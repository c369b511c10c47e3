import { ConfigError, type Tool, type ToolContext } from '@bridle/protocol';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry } from '../src/index';

const context: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  runId: 'r1',
  idempotencyKey: 'r1:c1',
};

const addParameters = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

function plainTool(name: string, overrides: Partial<Tool> = {}): Tool {
  return { name, description: `the ${name} tool`, parameters: addParameters, execute: () => name, ...overrides };
}

function configError(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('ToolRegistry construction', () => {
  test('accepts plain tools and defineTool results', () => {
    const zodTool = defineTool({
      name: 'echo',
      description: 'Echo text',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const registry = new ToolRegistry([plainTool('add'), zodTool]);
    expect(registry.has('add')).toBe(true);
    expect(registry.has('echo')).toBe(true);
    expect(registry.has('missing')).toBe(false);
    expect(registry.get('echo')).toBe(zodTool);
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.tools().map((tool) => tool.name)).toEqual(['add', 'echo']);
  });

  test('definitions() are JSON Schema, cached and frozen', () => {
    const registry = new ToolRegistry([
      plainTool('add'),
      defineTool({ name: 'echo', description: 'Echo', parameters: z.object({ text: z.string() }), execute: () => 1 }),
    ]);
    const definitions = registry.definitions();
    expect(registry.definitions()).toBe(definitions);
    expect(JSON.parse(JSON.stringify(definitions))).toEqual([
      { name: 'add', description: 'the add tool', parameters: addParameters },
      {
        name: 'echo',
        description: 'Echo',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      },
    ]);
    expect(Object.isFrozen(definitions)).toBe(true);
    expect(Object.isFrozen(definitions[0])).toBe(true);
    expect(Object.keys(definitions[1]!.parameters)).not.toContain('~standard');
    expect(Object.getOwnPropertyNames(definitions[1]!.parameters)).not.toContain('~standard');
  });

  test.each([
    ['', 'tools[0] has an invalid name ""'],
    ['1abc', 'tools[0] has an invalid name "1abc"'],
    ['has space', 'tools[0] has an invalid name "has space"'],
    ['dot.name', 'tools[0] has an invalid name "dot.name"'],
    ['__proto__', 'tools[0] has an invalid name "__proto__"'],
    ['a'.repeat(65), `tools[0] has an invalid name "${'a'.repeat(65)}"`],
  ])('bad name %j', (name, start) => {
    const message = configError(() => new ToolRegistry([plainTool(name)]));
    expect(message).toBe(
      `${start}: a tool name must match ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$ (a letter, then up to 63 letters, digits, "_" or "-"), e.g. "read_file".`,
    );
  });

  test('the longest name (64 characters) and names like "constructor" are fine', () => {
    const registry = new ToolRegistry([plainTool(`a${'b'.repeat(63)}`), plainTool('constructor'), plainTool('A-b_9')]);
    expect(registry.has('constructor')).toBe(true);
    expect(registry.has('toString')).toBe(false);
    expect(registry.get('hasOwnProperty')).toBeUndefined();
  });

  test('duplicate names', () => {
    expect(configError(() => new ToolRegistry([plainTool('a'), plainTool('b'), plainTool('a')]))).toBe(
      'Duplicate tool name "a" (tools[0] and tools[2]): tool names must be unique. Rename one of them.',
    );
  });

  test('bad tool shapes', () => {
    expect(configError(() => new ToolRegistry([null as never]))).toBe(
      'tools[0] must be a tool object { name, description, parameters, execute }, got null.',
    );
    expect(configError(() => new ToolRegistry({} as never))).toBe(
      'ToolRegistry expects an array of tools, got an object.',
    );
    expect(configError(() => new ToolRegistry([plainTool('a', { description: 5 as never })]))).toBe(
      'Tool "a": description must be a string telling the model what the tool does, got number 5.',
    );
    expect(configError(() => new ToolRegistry([plainTool('a', { execute: 'run' as never })]))).toBe(
      'Tool "a": execute must be a function (args, context) => result, got "run".',
    );
    expect(configError(() => new ToolRegistry([plainTool('a', { readOnly: 'yes' as never })]))).toBe(
      'Tool "a": readOnly must be true or false when given, got "yes".',
    );
  });

  test('invalid schemas name the tool and the fix', () => {
    expect(configError(() => new ToolRegistry([plainTool('a', { parameters: undefined as never })]))).toBe(
      'Tool "a": parameters must be a JSON Schema object with type "object" or a Standard Schema (such as z.object({...})), got undefined.',
    );
    expect(configError(() => new ToolRegistry([plainTool('a', { parameters: { type: 'string' } })]))).toBe(
      'Tool "a": parameters must have type "object" at the root (it has type "string"): tool arguments are always a JSON object. Use { type: "object", properties: { ... } } and put other values inside a property.',
    );
    expect(configError(() => new ToolRegistry([plainTool('a', { parameters: { properties: {} } })]))).toMatch(
      /^Tool "a": parameters must have type "object" at the root \(it has no type\)/,
    );
    expect(
      configError(
        () =>
          new ToolRegistry([plainTool('a', { parameters: { type: 'object', properties: { x: { type: 'text' } } } })]),
      ),
    ).toMatch(
      /^Tool "a": parameters is not a valid JSON Schema \(draft 2020-12\): schema\/properties\/x\/type must be/,
    );
    expect(
      configError(
        () =>
          new ToolRegistry([plainTool('a', { parameters: { type: 'object', properties: { x: { $ref: '#/nope' } } } })]),
      ),
    ).toMatch(/^Tool "a": parameters could not be compiled: can't resolve reference #\/nope/);
    expect(
      configError(() => new ToolRegistry([plainTool('a', { parameters: { type: 'object', bad: () => 1 } as never })])),
    ).toBe(
      'Tool "a": The schema is not plain JSON: $.bad: a function is not valid JSON. Write the schema as plain JSON data.',
    );
  });

  test('a schema nested too deeply is a ConfigError, not a stack overflow', () => {
    let deep: Record<string, unknown> = { type: 'object' };
    for (let level = 0; level < 10_000; level++) deep = { type: 'object', properties: { a: deep } };
    expect(configError(() => new ToolRegistry([plainTool('a', { parameters: deep })]))).toMatch(
      /^Tool "a": The schema is not plain JSON: .*nested more than 256 levels deep/,
    );
  });

  test('a zod schema that is not an object at the root', () => {
    expect(configError(() => new ToolRegistry([plainTool('a', { parameters: z.string() as never })]))).toMatch(
      /^Tool "a": parameters must have type "object" at the root \(it has type "string"\)/,
    );
  });

  test('a zod schema that JSON Schema cannot express', () => {
    const parameters = z.object({ when: z.date() });
    expect(configError(() => defineTool({ name: 'a', description: 'd', parameters, execute: () => 1 }))).toMatch(
      /^defineTool: |^Tool "a": The zod schema cannot be converted to JSON Schema \(.+\)\. Use only types JSON can carry/,
    );
  });
});

describe('ToolRegistry.validate', () => {
  const registry = new ToolRegistry([
    plainTool('add'),
    defineTool({
      name: 'greet',
      description: 'Greet someone',
      parameters: z.object({ name: z.string().min(1), times: z.number().int().default(1) }),
      execute: ({ name, times }) => `hi ${name}`.repeat(times),
    }),
  ]);

  test('valid JSON Schema arguments come back as they are', () => {
    const args = { a: 1, b: 2 };
    expect(registry.validate('add', args)).toEqual({ ok: true, value: args });
    expect((registry.validate('add', args) as { value: unknown }).value).toBe(args);
  });

  test('invalid arguments give path lines', () => {
    expect(registry.validate('add', { a: '1' })).toEqual({
      ok: false,
      errors: ['$: missing required property "b"', '$.a: must be number, got "1"'],
    });
  });

  test('zod tools validate with zod and return its parsed output', () => {
    expect(registry.validate('greet', { name: 'Ada' })).toEqual({ ok: true, value: { name: 'Ada', times: 1 } });
    expect(registry.validate('greet', { name: '' })).toEqual({
      ok: false,
      errors: ['$.name: Too small: expected string to have >=1 characters'],
    });
  });

  test('unknown tools list the available ones', () => {
    expect(registry.validate('nope', {})).toEqual({
      ok: false,
      errors: ['Unknown tool: nope. Available tools: add, greet'],
    });
    expect(new ToolRegistry([]).validate('x', {})).toEqual({
      ok: false,
      errors: ['Unknown tool: x. Available tools: none'],
    });
    expect(registry.validate(42 as never, {})).toEqual({
      ok: false,
      errors: ['Unknown tool: (a number, not a tool name). Available tools: add, greet'],
    });
    expect(registry.validate('toString', {})).toEqual({
      ok: false,
      errors: ['Unknown tool: toString. Available tools: add, greet'],
    });
  });

  test('non-object arguments', () => {
    for (const tool of ['add', 'greet']) {
      for (const args of [null, 5, true, [1, 2]]) {
        const result = registry.validate(tool, args);
        expect(result.ok).toBe(false);
      }
    }
    expect(registry.validate('add', null)).toEqual({ ok: false, errors: ['$: must be object, got null'] });
    expect(registry.validate('add', [1])).toEqual({ ok: false, errors: ['$: must be object, got an array'] });
    expect(registry.validate('greet', 5)).toEqual({
      ok: false,
      errors: ['$: Invalid input: expected object, received number'],
    });
  });

  test('raw strings that are not JSON say so', () => {
    expect(registry.validate('add', '{"a": 1, "b": ')).toEqual({
      ok: false,
      errors: [
        `$: expected an object of arguments, got a string that is not JSON: "{\\"a\\": 1, \\"b\\": " (Unexpected end of JSON input). Send the arguments as one JSON object that matches the tool's parameters.`,
      ],
    });
    const long = `not json ${'x'.repeat(500)}`;
    const result = registry.validate('greet', long);
    expect(result.ok).toBe(false);
    expect((result as { errors: string[] }).errors[0]).toMatch(
      /^\$: expected an object of arguments, got a string that is not JSON: "not json x+"… \(Unexpected token/,
    );
  });

  test('strings holding JSON are parsed; an empty string means no arguments', () => {
    expect(registry.validate('add', '{"a": 1, "b": 2}')).toEqual({ ok: true, value: { a: 1, b: 2 } });
    expect(registry.validate('add', '"text"')).toEqual({ ok: false, errors: ['$: must be object, got "text"'] });
    expect(registry.validate('add', '  ')).toEqual({
      ok: false,
      errors: ['$: missing required property "a"', '$: missing required property "b"'],
    });
  });

  test('__proto__ keys, also written with JSON escapes, cannot pollute and are refused by additionalProperties', () => {
    for (const text of ['{"a":1,"b":2,"__proto__":{"polluted":1}}', '{"a":1,"b":2,"\\u005f_proto__":{"polluted":1}}']) {
      expect(registry.validate('add', text)).toEqual({
        ok: false,
        errors: ['$.__proto__: unknown property; allowed properties: "a", "b"'],
      });
      expect(registry.validate('add', JSON.parse(text)).ok).toBe(false);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(registry.validate('add', JSON.parse('{"a":1,"b":2,"constructor":{"prototype":{"x":1}}}'))).toEqual({
      ok: false,
      errors: ['$.constructor: unknown property; allowed properties: "a", "b"'],
    });
  });

  test('zod strips a __proto__ key instead of applying it', () => {
    const result = registry.validate('greet', '{"name":"x","__proto__":{"polluted":1}}');
    expect(result.ok).toBe(true);
    const value = (result as { value: Record<string, unknown> }).value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('NaN, Infinity, deep and huge arguments give errors for both kinds of tools', () => {
    expect(registry.validate('add', { a: Number.NaN, b: Number.POSITIVE_INFINITY })).toEqual({
      ok: false,
      errors: [
        '$.a: NaN is not valid JSON; use a finite number or null',
        '$.b: Infinity is not valid JSON; use a finite number or null',
      ],
    });
    expect(registry.validate('greet', { name: 'x', times: Number.NaN })).toEqual({
      ok: false,
      errors: ['$.times: NaN is not valid JSON; use a finite number or null'],
    });
    const deepText = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    for (const tool of ['add', 'greet']) {
      const deep = registry.validate(tool, deepText);
      expect(deep.ok).toBe(false);
      expect((deep as { errors: string[] }).errors).toHaveLength(1);
      expect((deep as { errors: string[] }).errors[0]).toMatch(
        /: nested more than 512 levels deep; send a flatter value$/,
      );
      expect(registry.validate(tool, { a: new Array(150_000).fill(0) })).toEqual({
        ok: false,
        errors: ['$: the value holds more than 100000 values (array items and properties); send less data'],
      });
    }
  });

  test('the arguments are never mutated', () => {
    const args = { name: 'Ada' };
    registry.validate('greet', args);
    expect(args).toEqual({ name: 'Ada' });
    const frozen = Object.freeze({ a: 1, b: 2 });
    expect(registry.validate('add', frozen)).toEqual({ ok: true, value: frozen });
  });

  test('validateAsync awaits async Standard Schemas; validate refuses them clearly', async () => {
    const asyncRegistry = new ToolRegistry([
      defineTool({
        name: 'check',
        description: 'Check',
        parameters: z
          .object({ n: z.number() })
          .refine(async ({ n }) => n > 0, { message: 'must be positive', path: ['n'] }),
        execute: ({ n }) => n,
      }),
    ]);
    expect(await asyncRegistry.validateAsync('check', { n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(await asyncRegistry.validateAsync('check', { n: -1 })).toEqual({
      ok: false,
      errors: ['$.n: must be positive'],
    });
    expect(await asyncRegistry.validateAsync('check', '{oops')).toMatchObject({ ok: false });
    expect(await asyncRegistry.validateAsync('nope', {})).toEqual({
      ok: false,
      errors: ['Unknown tool: nope. Available tools: check'],
    });
    expect(configError(() => asyncRegistry.validate('check', { n: 1 }))).toBe(
      'Tool "check" validates asynchronously: call validateAsync(name, args) instead.',
    );
  });

  test('a Standard Schema validator that throws becomes an error line', async () => {
    const broken = {
      '~standard': {
        version: 1 as const,
        vendor: 'custom',
        validate: () => {
          throw new Error('library bug');
        },
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    };
    const brokenRegistry = new ToolRegistry([
      { name: 'b', description: 'b', parameters: broken as never, execute: () => 1 },
    ]);
    expect(brokenRegistry.definitions()[0]!.parameters).toEqual({ type: 'object' });
    expect(brokenRegistry.validate('b', {})).toEqual({
      ok: false,
      errors: ['$: could not be validated (library bug)'],
    });
  });

  test('validated values reach execute', async () => {
    const tool = registry.get('greet')!;
    const checked = registry.validate('greet', { name: 'Bo', times: 2 });
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(await tool.execute(checked.value, context)).toBe('hi Bohi Bo');
  });
});
