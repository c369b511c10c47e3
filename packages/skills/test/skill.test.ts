import { ConfigError, type Tool } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { defineSkill } from '../src/skill';

const echo: Tool = { name: 'echo', description: 'Echo', parameters: { type: 'object' }, execute: (args) => args };

function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('defineSkill', () => {
  it('returns a frozen skill with trimmed text and a copy of the tools', () => {
    const tools = [echo];
    const skill = defineSkill({ name: 'echoer', description: ' Echoes. ', instructions: '\nUse echo.\n', tools });
    expect(skill).toEqual({ name: 'echoer', description: 'Echoes.', instructions: 'Use echo.', tools: [echo] });
    expect(Object.isFrozen(skill)).toBe(true);
    tools.push({ ...echo, name: 'other' });
    expect(skill.tools).toHaveLength(1);
  });

  it('defaults tools to none', () => {
    expect(defineSkill({ name: 'tone', description: 'Tone', instructions: 'Be brief.' }).tools).toEqual([]);
  });

  it('rejects bad names, descriptions and instructions, naming the skill', () => {
    expect(configError(() => defineSkill({ name: '1bad', description: 'd', instructions: 'i' }))).toBe(
      'Invalid skill name "1bad": use a letter, then up to 63 letters, digits, "_" or "-" (e.g. "code-review").',
    );
    expect(configError(() => defineSkill({ name: 'x', description: '  ', instructions: 'i' }))).toContain(
      'Skill "x": description must be a non-empty string',
    );
    expect(configError(() => defineSkill({ name: 'x', description: 'd'.repeat(1025), instructions: 'i' }))).toContain(
      'at most 1024 characters',
    );
    expect(configError(() => defineSkill({ name: 'x', description: 'd', instructions: '' }))).toBe(
      'Skill "x": instructions must be a non-empty string, got "".',
    );
    expect(configError(() => defineSkill(null as never))).toContain('defineSkill expects an object');
  });

  it('rejects tools that are not tools and duplicate tool names', () => {
    expect(
      configError(() =>
        defineSkill({ name: 'x', description: 'd', instructions: 'i', tools: [{ name: 'a' } as never] }),
      ),
    ).toContain('Skill "x": tools[0] is not a tool');
    expect(
      configError(() => defineSkill({ name: 'x', description: 'd', instructions: 'i', tools: [echo, { ...echo }] })),
    ).toBe('Skill "x" has two tools named "echo": give each tool a unique name.');
    expect(
      configError(() => defineSkill({ name: 'x', description: 'd', instructions: 'i', tools: 'echo' as never })),
    ).toContain('tools must be an array');
  });
});
