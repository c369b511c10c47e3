import { ConfigError, type Tool } from '@bridle/protocol';
import type { Skill } from './skill';

/** Where the skills are added: the agent's own system prompt and tools. */
export interface ComposeSkillsOptions {
  system?: string;
  tools?: readonly Tool[];
}

/** The system prompt and tools with every skill applied. */
export interface ComposedSkills {
  system?: string;
  tools: Tool[];
}

/**
 * The delimited section a skill adds to the system prompt:
 * `<skill name="NAME">\nINSTRUCTIONS\n</skill>`.
 */
export function skillSection(skill: Pick<Skill, 'name' | 'instructions'>): string {
  return `<skill name="${skill.name}">\n${skill.instructions}\n</skill>`;
}

/**
 * Applies skills in order, the way `agent.use(skill)` does for one: each skill's instructions are
 * appended to the system prompt as a {@link skillSection} (separated by a blank line), and its tools are
 * added after the given ones. The same tool object offered twice (two skills sharing `calculatorTool`)
 * is registered once; two different tools with one name, or the same skill name twice, throw `ConfigError`
 * naming both owners. Never mutates its inputs.
 */
export function composeSkills(skills: readonly Skill[], options: ComposeSkillsOptions = {}): ComposedSkills {
  const tools: Tool[] = [...(options.tools ?? [])];
  const owners = new Map<string, { tool: Tool; owner: string }>();
  for (const tool of tools) owners.set(tool.name, { tool, owner: 'the agent' });
  const sections: string[] = [];
  if (options.system !== undefined && options.system.trim() !== '') sections.push(options.system);
  const skillNames = new Set<string>();
  for (const skill of skills) {
    if (skillNames.has(skill.name)) throw new ConfigError(`Skill "${skill.name}" is used twice: use each skill once.`);
    skillNames.add(skill.name);
    for (const tool of skill.tools) {
      const existing = owners.get(tool.name);
      if (existing?.tool === tool) continue;
      if (existing) {
        throw new ConfigError(
          `Tool name clash: skill "${skill.name}" brings a tool "${tool.name}" but ${existing.owner === 'the agent' ? 'the agent' : `skill "${existing.owner}"`} already has a different one. Rename one of them.`,
        );
      }
      owners.set(tool.name, { tool, owner: skill.name });
      tools.push(tool);
    }
    sections.push(skillSection(skill));
  }
  return { ...(sections.length > 0 ? { system: sections.join('\n\n') } : {}), tools };
}
