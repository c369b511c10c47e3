import { ConfigError, describeValue, type Tool } from '@bridle/protocol';
import { ToolRegistry } from '@bridle/registry';
import { invalidOption } from './option-checks';

/**
 * Instructions plus the tools they need: the unit agents are assembled from. `defineSkill` of @bridle/skills
 * makes checked, frozen ones; `agent.use()` also takes a partial one (`{ instructions, tools }`).
 */
export interface Skill {
  /** Unique among the skills of one agent; `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`. */
  readonly name: string;
  /** One line saying what the skill is for (shown to people, e.g. in `bridle run --help`). */
  readonly description: string;
  /** Appended to the system prompt in a delimited section (see {@link skillSection}). */
  readonly instructions: string;
  /** Registered with the agent; a name clash with another tool is a `ConfigError`. */
  readonly tools: readonly Tool[];
}

/** Where skills are added: the agent's own system prompt and tools. */
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
 * The delimited section a skill adds to the system prompt: `<skill name="NAME">\nINSTRUCTIONS\n</skill>`
 * (`<skill>` without a name).
 */
export function skillSection(skill: { readonly name?: string | undefined; readonly instructions: string }): string {
  const name = skill.name === undefined ? '' : ` name=${JSON.stringify(skill.name)}`;
  return `<skill${name}>\n${skill.instructions}\n</skill>`;
}

/**
 * A system prompt and tools that skills are added to, one at a time, by the one set of rules that
 * `agent.use()` and {@link composeSkills} share: instructions become a {@link skillSection} after the
 * system prompt (separated by a blank line); tools are added after the ones already there; the same tool
 * object offered twice (two skills sharing `calculatorTool`) is kept once; two different tools with one
 * name, an invalid tool, or the same skill name twice throw `ConfigError` and change nothing.
 */
export class SkillSet {
  readonly #system: string | undefined;
  readonly #tools: Tool[];
  readonly #owners = new Map<string, string>();
  readonly #sections: string[] = [];
  readonly #names = new Set<string>();

  constructor(options: ComposeSkillsOptions = {}) {
    this.#system = options.system;
    this.#tools = [...(options.tools ?? [])];
    for (const tool of this.#tools) this.#owners.set(tool.name, 'the agent');
  }

  /** The system prompt with one section per skill; undefined when there is nothing to say. */
  get system(): string | undefined {
    const parts =
      this.#system === undefined || this.#system.trim() === '' ? this.#sections : [this.#system, ...this.#sections];
    return parts.length === 0 ? undefined : parts.join('\n\n');
  }

  /** A copy of the tools. */
  get tools(): Tool[] {
    return [...this.#tools];
  }

  /** Adds a tool, or a skill (complete or partial). Throws `ConfigError` and changes nothing when it cannot. */
  add(toolOrSkill: Tool | Partial<Skill>): void {
    if (typeof toolOrSkill !== 'object' || toolOrSkill === null)
      throw new ConfigError(
        `agent.use() needs a tool or a skill ({ instructions?, tools? }), got ${describeValue(toolOrSkill)}.`,
      );
    const isTool = typeof (toolOrSkill as Tool).execute === 'function';
    const skill: Partial<Skill> = isTool ? { tools: [toolOrSkill as Tool] } : (toolOrSkill as Partial<Skill>);
    if (skill.instructions !== undefined && typeof skill.instructions !== 'string')
      invalidOption('skill.instructions', 'a string', skill.instructions);
    if (skill.tools !== undefined && !Array.isArray(skill.tools))
      invalidOption('skill.tools', 'an array of tools', skill.tools);
    if (skill.name !== undefined && this.#names.has(skill.name))
      throw new ConfigError(`Skill "${skill.name}" is used twice: use each skill once.`);
    const owner = isTool ? 'agent.use()' : skill.name === undefined ? 'a skill' : `skill "${skill.name}"`;
    const added = [...new Set(skill.tools ?? [])].filter((tool) => !this.#tools.includes(tool));
    for (const tool of added) {
      const existing = this.#owners.get(tool.name);
      if (existing !== undefined)
        throw new ConfigError(
          `Tool name clash: ${owner} brings a tool "${tool.name}" but ${existing} already has a different one. Rename one of them.`,
        );
    }
    // The registry checks names, schemas and duplicates within the new tools.
    new ToolRegistry([...this.#tools, ...added]);
    for (const tool of added) this.#owners.set(tool.name, owner === 'agent.use()' ? 'the agent' : owner);
    this.#tools.push(...added);
    if (skill.name !== undefined) this.#names.add(skill.name);
    if (skill.instructions) this.#sections.push(skillSection(skill as { name?: string; instructions: string }));
  }
}

/**
 * Applies skills in order, the way `agent.use(skill)` does for each (see {@link SkillSet} for the rules), and
 * returns the system prompt and tools. Never mutates its inputs.
 */
export function composeSkills(
  skills: readonly (Tool | Partial<Skill>)[],
  options: ComposeSkillsOptions = {},
): ComposedSkills {
  const set = new SkillSet(options);
  for (const skill of skills) set.add(skill);
  const system = set.system;
  return { ...(system === undefined ? {} : { system }), tools: set.tools };
}
