import type { Skill } from '@bridle/core';
import { ConfigError, describeValue, type Tool } from '@bridle/protocol';

export type { Skill };

/** What {@link defineSkill} takes. `tools` defaults to none. */
export interface SkillDefinition {
  name: string;
  description: string;
  instructions: string;
  tools?: readonly Tool[];
}

const SKILL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** Longest description accepted, in characters (as for SKILL.md folders). */
export const MAX_DESCRIPTION_CHARS = 1024;

/**
 * Checks a skill definition and returns it as a frozen {@link Skill}. Throws `ConfigError` naming the
 * skill and the field for: a bad name, an empty or too long description, empty instructions, a tool
 * that is not an object with a name and `execute`, two tools with the same name.
 */
export function defineSkill(definition: SkillDefinition): Skill {
  if (typeof definition !== 'object' || definition === null) {
    throw new ConfigError(
      `defineSkill expects an object { name, description, instructions, tools }, got ${describeValue(definition)}.`,
    );
  }
  const { name, description, instructions, tools = [] } = definition;
  if (typeof name !== 'string' || !SKILL_NAME.test(name)) {
    throw new ConfigError(
      `Invalid skill name ${describeValue(name)}: use a letter, then up to 63 letters, digits, "_" or "-" (e.g. "code-review").`,
    );
  }
  if (typeof description !== 'string' || description.trim() === '' || description.length > MAX_DESCRIPTION_CHARS) {
    throw new ConfigError(
      `Skill "${name}": description must be a non-empty string of at most ${MAX_DESCRIPTION_CHARS} characters, got ${describeValue(description)}.`,
    );
  }
  if (typeof instructions !== 'string' || instructions.trim() === '') {
    throw new ConfigError(
      `Skill "${name}": instructions must be a non-empty string, got ${describeValue(instructions)}.`,
    );
  }
  if (!Array.isArray(tools))
    throw new ConfigError(`Skill "${name}": tools must be an array of tools, got ${describeValue(tools)}.`);
  const seen = new Set<string>();
  tools.forEach((tool: unknown, index) => {
    const candidate = tool as Partial<Tool> | null;
    if (
      typeof candidate !== 'object' ||
      candidate === null ||
      typeof candidate.name !== 'string' ||
      typeof candidate.execute !== 'function'
    ) {
      throw new ConfigError(
        `Skill "${name}": tools[${index}] is not a tool (an object with a name and an execute function), got ${describeValue(tool)}.`,
      );
    }
    if (seen.has(candidate.name))
      throw new ConfigError(`Skill "${name}" has two tools named "${candidate.name}": give each tool a unique name.`);
    seen.add(candidate.name);
  });
  return Object.freeze({
    name,
    description: description.trim(),
    instructions: instructions.trim(),
    tools: Object.freeze([...tools]),
  });
}
