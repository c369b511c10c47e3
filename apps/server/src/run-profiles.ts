import type { Tool } from '@bridle/protocol';
import { composeSkills, type Skill } from '@bridle/skills';
import { ServerError } from './server-error';

/** The system prompt and tools of a run, with a skill (or none) applied. */
export interface RunProfile {
  system?: string;
  tools: Tool[];
  /** Names of the read-only tools (batch items may be retried after these). */
  readOnlyTools: string[];
}

/** Profiles composed once at startup: one without a skill and one per skill. */
export interface RunProfiles {
  /** The profile for `skill` (none: the base one); throws `ServerError('bad_request')` for an unknown name. */
  get(skill?: string): RunProfile;
  readonly skillNames: readonly string[];
  /** The skill of requests that name none (undefined: the base profile, no skill). */
  readonly defaultSkill?: string;
}

function profile(system: string | undefined, tools: Tool[]): RunProfile {
  return {
    ...(system === undefined ? {} : { system }),
    tools,
    readOnlyTools: tools.filter((tool) => tool.readOnly === true).map((tool) => tool.name),
  };
}

/**
 * Composes every skill with the base system prompt and tools up front, so a clash is a `ConfigError`
 * at startup (not a failure of some later request) and requests pay nothing for it.
 */
export function buildRunProfiles(options: {
  system?: string;
  tools?: Tool[];
  skills: readonly Skill[];
  /** The skill of requests that name none; default none (the base profile). */
  defaultSkill?: string;
}): RunProfiles {
  const base = profile(options.system, [...(options.tools ?? [])]);
  const bySkill = new Map<string, RunProfile>();
  for (const skill of options.skills) {
    const composed = composeSkills([skill], {
      ...(options.system ? { system: options.system } : {}),
      tools: base.tools,
    });
    bySkill.set(skill.name, profile(composed.system, composed.tools));
  }
  const skillNames = [...bySkill.keys()];
  return {
    skillNames,
    ...(options.defaultSkill === undefined ? {} : { defaultSkill: options.defaultSkill }),
    get(skill = options.defaultSkill) {
      if (skill === undefined) return base;
      const found = bySkill.get(skill);
      if (!found) {
        throw new ServerError(
          'bad_request',
          `Unknown skill "${skill}": this server offers ${skillNames.length ? skillNames.map((name) => `"${name}"`).join(', ') : 'no skills'}.`,
        );
      }
      return found;
    },
  };
}
