import { resolve } from 'node:path';
import { ConfigError, type Sandbox, type Tool } from '@bridle/protocol';
import { analystSkill, assistantSkill, codingSkill, createToolbox, loadSkill, type Skill } from '@bridle/skills';
import type { Workspace } from '@bridle/workspace-tools';

/** The skills the server knows by name. */
export const SERVER_BUILT_IN_SKILLS = ['assistant', 'analyst'] as const;

const looksLikePath = (name: string) => /[/\\]/.test(name) || name.startsWith('.');

/**
 * Turns `BRIDLE_SKILL` entries into skills: built-in names, `coding` (with a workspace: its writes, edits
 * and commands require approval), or folders with a SKILL.md (resolved from `cwd`; their `tools:` may
 * name `clock`, `calculator`, `http_fetch` and, with a workspace, the coding tools). With a workspace and
 * no `coding` entry, `coding` is added last; with a `sandbox` (over the workspace) `coding` also offers the
 * `shell` tool. Throws `ConfigError` naming the entry for an unknown name,
 * for `coding` without a workspace, and for a folder `loadSkill` refuses.
 */
export async function resolveSkills(
  names: readonly string[],
  cwd: string,
  workspace?: Workspace,
  sandbox?: Sandbox,
): Promise<Skill[]> {
  const toolbox = createToolbox();
  const coding = workspace === undefined ? undefined : codingSkill({ workspace, ...(sandbox ? { sandbox } : {}) });
  const catalogue: Tool[] = [toolbox.clock, toolbox.calculator, toolbox.httpFetch, ...(coding?.tools ?? [])];
  const skills: Skill[] = [];
  const wanted = coding !== undefined && !names.includes('coding') ? [...names, 'coding'] : names;
  for (const name of wanted) {
    if (name === 'assistant') skills.push(assistantSkill({ toolbox }));
    else if (name === 'analyst') skills.push(analystSkill({ toolbox }));
    else if (name === 'coding') {
      if (coding === undefined) {
        throw new ConfigError(
          'BRIDLE_SKILL=coding needs a workspace: set BRIDLE_WORKSPACE=DIR (or --workspace DIR), the folder the agent may read, edit and run commands in.',
        );
      }
      skills.push(coding);
    } else if (looksLikePath(name)) skills.push(await loadSkill(resolve(cwd, name), { catalogue }));
    else {
      throw new ConfigError(
        `Unknown skill "${name}" in BRIDLE_SKILL: use ${SERVER_BUILT_IN_SKILLS.join(', ')}, coding (with BRIDLE_WORKSPACE) or a path to a folder with a SKILL.md (e.g. ./skills/review).`,
      );
    }
  }
  return skills;
}
