import { resolve } from 'node:path';
import { ConfigError, type Tool } from '@bridle/protocol';
import { analystSkill, assistantSkill, createToolbox, loadSkill, type Skill } from '@bridle/skills';

/** The skills the server knows by name. */
export const SERVER_BUILT_IN_SKILLS = ['assistant', 'analyst'] as const;

const looksLikePath = (name: string) => /[/\\]/.test(name) || name.startsWith('.');

/**
 * Turns `BRIDLE_SKILL` entries into skills: built-in names, or folders with a SKILL.md (resolved from
 * `cwd`; their `tools:` may name `clock`, `calculator` and `http_fetch`). Throws `ConfigError` naming the
 * entry for an unknown name, for `coding` (it needs a workspace, which this server does not take yet),
 * and for a folder `loadSkill` refuses.
 */
export async function resolveSkills(names: readonly string[], cwd: string): Promise<Skill[]> {
  const toolbox = createToolbox();
  const catalogue: Tool[] = [toolbox.clock, toolbox.calculator, toolbox.httpFetch];
  const skills: Skill[] = [];
  for (const name of names) {
    if (name === 'assistant') skills.push(assistantSkill({ toolbox }));
    else if (name === 'analyst') skills.push(analystSkill({ toolbox }));
    else if (name === 'coding') {
      throw new ConfigError(
        'BRIDLE_SKILL=coding needs a workspace, which the server does not take yet: use assistant, analyst or a SKILL.md folder.',
      );
    } else if (looksLikePath(name)) skills.push(await loadSkill(resolve(cwd, name), { catalogue }));
    else {
      throw new ConfigError(
        `Unknown skill "${name}" in BRIDLE_SKILL: use ${SERVER_BUILT_IN_SKILLS.join(', ')} or a path to a folder with a SKILL.md (e.g. ./skills/review).`,
      );
    }
  }
  return skills;
}
