import { ConfigError, type Tool, type ToolContext } from '@bridle/protocol';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { defineTool, STANDARD_PARAMETERS, ToolRegistry } from '../src/index';

const context: ToolContext = {
  signal: new AbortController().signal,
  callId: 'c1',
  runId: 'r1',
  idempotencyKey: 'r1:c1',
};

describe('defineTool', () => {
  test('zod parameters: execute is typed by the schema output, the model sees JSON Schema', async () => {
    const tool = defineTool({
      name: 'search',
      description: 'Search the docs',
      parameters: z.object({ query: z.string(), limit: z.number().int().max(50).default(10) }),
      readOnly: true,
      execute: ({ query, limit }) => {
        expectTypeOf(query).toEqualTypeOf<string>();
        expectTypeOf(limit).toEqualTypeOf<number>();
        return { query, limit };
      },
    });
    expectTypeOf(tool).toMatchTypeOf<Tool<{ query: string; limit: number }, { query: string; limit: number }>>();
    expect(tool.readOnly).toBe(true);
    expect(tool.requiresApproval).toBeUndefined();
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: 'integer', maximum: 50, minimum: -9007199254740991, default: 10 },
      },
      required: ['query'],
    });
    expect(tool.parameters).not.toHaveProperty('$schema');
    expect(tool[STANDARD_PARAMETERS]).toBeDefined();
    expect(await tool.execute({ query: 'q', limit: 1 }, context)).toEqual({ query: 'q', limit: 1 });
  });

  test('a spread copy keeps validating with zod', () => {
    const tool = defineTool({
      name: 'a',
      description: 'A',
      parameters: z.object({ n: z.coerce.number() }),
      execute: ({ n }) => n,
    });
    const renamed = { ...tool, name: 'b' };
    expect(new ToolRegistry([renamed]).validate('b', { n: '5' })).toEqual({ ok: true, value: { n: 5 } });
  });

  test('JSON Schema parameters: execute gets the type argument (unknown by default)', () => {
    const typed = defineTool<{ city: string }>({
      name: 'weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string }>();
        return args.city;
      },
    });
    const untyped = defineTool({
      name: 'raw',
      description: 'Raw',
      parameters: { type: 'object' },
      requiresApproval: true,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<unknown>();
        return 1;
      },
    });
    expect(typed[STANDARD_PARAMETERS]).toBeUndefined();
    expect(untyped.requiresApproval).toBe(true);
    expect(new ToolRegistry([typed, untyped]).validate('weather', {})).toEqual({
      ok: false,
      errors: ['$: missing required property "city"'],
    });
  });

  test('checks the tool at once', () => {
    const make = (name: string, parameters: object) => () =>
      defineTool({ name, description: 'd', parameters: parameters as never, execute: () => 1 });
    expect(make('bad name', { type: 'object' })).toThrow(ConfigError);
    expect(make('bad name', { type: 'object' })).toThrow(/^defineTool has an invalid name "bad name"/);
    expect(make('ok', { type: 'array' })).toThrow(/^Tool "ok": parameters must have type "object"/);
    expect(make('ok', z.object({ when: z.date() }))).toThrow(
      /^Tool "ok": The zod schema cannot be converted to JSON Schema \(.+\)\. Use only types JSON can carry/,
    );
  });

  test('a Standard Schema without a JSON Schema converter is refused with the fix', () => {
    const bare = { '~standard': { version: 1, vendor: 'bare', validate: (value: unknown) => ({ value }) } };
    expect(() => defineTool({ name: 'x', description: 'd', parameters: bare as never, execute: () => 1 })).toThrow(
      'Tool "x": The bare schema cannot be converted to JSON Schema: it lacks ~standard.jsonSchema. Use zod 4.2 or newer, or pass a JSON Schema object.',
    );
  });
});
