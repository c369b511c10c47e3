import type { Tool } from '@bridle/protocol';
import { defineTool } from '@bridle/registry';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registryFor } from '../src/registry-cache';

const names = (tools: Tool[]) =>
  registryFor(tools)
    .definitions()
    .map((definition) => definition.name);
const tool = (name: string): Tool => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object', properties: {} },
  execute: () => name,
});

describe('registryFor', () => {
  it('reuses the registry while the array and its tools are unchanged', () => {
    const tools = [tool('a'), tool('b')];
    expect(registryFor(tools)).toBe(registryFor(tools));
    expect(registryFor([...tools])).toBe(registryFor(tools));
    expect(registryFor([tools[1]!, tools[0]!])).not.toBe(registryFor(tools));
  });

  it('rebuilds when the array grows or shrinks, or a tool is replaced', () => {
    const tools = [tool('a')];
    const first = registryFor(tools);
    tools.push(tool('b'));
    expect(names(tools)).toEqual(['a', 'b']);
    tools.pop();
    expect(names(tools)).toEqual(['a']);
    tools[0] = tool('c');
    expect(names(tools)).toEqual(['c']);
    expect(registryFor(tools)).not.toBe(first);
  });

  it('rebuilds when a field of a tool changes in place, and checks it again', () => {
    const tools = [tool('a')];
    registryFor(tools);
    (tools[0] as { description: string }).description = 'changed';
    expect(registryFor(tools).definitions()[0]?.description).toBe('changed');
    (tools[0] as { readOnly?: boolean }).readOnly = true;
    expect(registryFor(tools).get('a')?.readOnly).toBe(true);
    (tools[0] as { name: string }).name = 'bad name!';
    expect(() => registryFor(tools)).toThrow(/invalid name "bad name!"/);
  });

  it('keeps defineTool tools with a Standard Schema', () => {
    const add = defineTool({
      name: 'add',
      description: 'Add',
      parameters: z.object({ a: z.number() }),
      execute: ({ a }) => a,
    });
    const tools = [add];
    const registry = registryFor(tools);
    expect(registryFor(tools)).toBe(registry);
    expect(registry.validate('add', { a: 'x' }).ok).toBe(false);
  });
});
