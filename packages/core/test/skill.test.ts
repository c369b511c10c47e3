import { ConfigError, type Tool } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { composeSkills, type Skill, SkillSet, skillSection } from '../src/skill';

function tool(name: string): Tool {
  return { name, description: name, parameters: { type: 'object' }, execute: () => name };
}
const shared = tool('calculator');
const math: Skill = { name: 'math', description: 'Math', instructions: 'Use the calculator.', tools: [shared] };
const web: Skill = {
  name: 'web',
  description: 'Web',
  instructions: 'Fetch pages.',
  tools: [tool('fetch'), shared],
};

describe('composeSkills', () => {
  it('appends delimited sections after the system prompt and adds tools in order', () => {
    const own = tool('own');
    const result = composeSkills([math, web], { system: 'You are terse.', tools: [own] });
    expect(result.system).toBe(
      'You are terse.\n\n<skill name="math">\nUse the calculator.\n</skill>\n\n<skill name="web">\nFetch pages.\n</skill>',
    );
    expect(result.tools.map((entry) => entry.name)).toEqual(['own', 'calculator', 'fetch']);
    expect(result.tools[1]).toBe(shared);
  });

  it('has no system prompt when there is nothing to say', () => {
    expect(composeSkills([])).toEqual({ tools: [] });
    expect(composeSkills([], { system: ' ' })).toEqual({ tools: [] });
  });

  it('renders one section per skill', () => {
    expect(skillSection({ name: 'a', instructions: 'x' })).toBe('<skill name="a">\nx\n</skill>');
  });

  it('rejects a clash between different tools with the same name, naming both owners', () => {
    const other: Skill = { name: 'other', description: 'o', instructions: 'o', tools: [tool('calculator')] };
    let caught: unknown;
    try {
      composeSkills([math, other]);
    } catch (error) {
      caught = error;
    }
    expect(ConfigError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      'Tool name clash: skill "other" brings a tool "calculator" but skill "math" already has a different one. Rename one of them.',
    );
    expect(() => composeSkills([math], { tools: [tool('calculator')] })).toThrow(
      'Tool name clash: skill "math" brings a tool "calculator" but the agent already has a different one.',
    );
  });

  it('rejects the same skill twice', () => {
    expect(() => composeSkills([math, math])).toThrow('Skill "math" is used twice: use each skill once.');
  });

  it('takes plain tools and partial skills like agent.use(), and checks new tools with the registry', () => {
    const own = tool('own');
    expect(composeSkills([own, { instructions: 'Be brief.' }, { tools: [own] }])).toEqual({
      system: '<skill>\nBe brief.\n</skill>',
      tools: [own],
    });
    expect(() => composeSkills([tool('bad name!')])).toThrow(ConfigError);
    expect(() => composeSkills([own, tool('own')])).toThrow(
      'Tool name clash: agent.use() brings a tool "own" but the agent already has a different one. Rename one of them.',
    );
  });

  it('changes nothing when adding fails', () => {
    const set = new SkillSet({ system: 'Base.' });
    set.add(math);
    const other: Skill = {
      name: 'other',
      description: 'o',
      instructions: 'o',
      tools: [tool('fresh'), tool('calculator')],
    };
    expect(() => set.add(other)).toThrow(ConfigError);
    expect(set.tools.map((entry) => entry.name)).toEqual(['calculator']);
    expect(set.system).toBe('Base.\n\n<skill name="math">\nUse the calculator.\n</skill>');
    set.add({ ...other, tools: [tool('fresh')] });
    expect(set.tools.map((entry) => entry.name)).toEqual(['calculator', 'fresh']);
  });
});
