import { manifestToolChanges } from '@bridle/core';
import type { RunManifest, StoredRun } from '@bridle/protocol';
import type { RunProfile, RunProfiles } from './run-profiles';

/** What the manifest of a run this server starts records beside its tools and limits: the skill it ran with. */
export function skillManifest(skill: string | undefined): { skills: string[] } | undefined {
  return skill === undefined ? undefined : { skills: [skill] };
}

/** The profile a journaled run is continued with, or why none rebuilds its tools. */
export type JournaledProfile = { profile: RunProfile } | { problem: string };

/**
 * The profile that rebuilds the tools a journaled run had (its first `run_start`'s manifest), for continuing
 * it without a request that names a skill (recovery of an orphan, a passed approval deadline): the skill its
 * manifest names, else the profile (none, or one per skill, `sessionSkill`'s first) whose tools are those the
 * manifest lists. A run without a manifest (journaled by an older release) gets `sessionSkill`'s profile, as
 * before. A `problem` (never thrown) names what differs: the run is then left as it is, resumable.
 */
export function journaledProfile(
  profiles: RunProfiles,
  run: StoredRun,
  sessionSkill: string | undefined,
): JournaledProfile {
  const first = run.events.find((event) => event.type === 'run_start');
  const manifest = first?.type === 'run_start' ? first.manifest : undefined;
  if (manifest === undefined) return { profile: profiles.get(sessionSkill) };
  const named = manifest.skills?.[0];
  if (named !== undefined && !profiles.skillNames.includes(named))
    return {
      problem: `run ${run.runId} ran with the skill ${JSON.stringify(named)}, which this server does not offer (it offers ${profiles.skillNames.map((name) => JSON.stringify(name)).join(', ') || 'none'})`,
    };
  const candidates =
    named !== undefined
      ? [named]
      : [...new Set([sessionSkill, profiles.defaultSkill, undefined, ...profiles.skillNames])];
  let closest: string | undefined;
  for (const skill of candidates) {
    const profile = profiles.get(skill);
    const difference = describe(manifest, profile);
    if (difference === undefined) return { profile };
    closest ??= difference;
  }
  return {
    problem: `this server cannot rebuild the tools run ${run.runId} had (${closest ?? 'no profile'}): start it with the tools and skills the run ran with, or continue it where they are`,
  };
}

/** The difference between a manifest's tools and a profile's, in words; undefined when they are the same. */
function describe(manifest: RunManifest, profile: RunProfile): string | undefined {
  const { missing, added, changed } = manifestToolChanges(manifest, profile.tools);
  const list = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');
  const parts = [
    ...(missing.length > 0 ? [`missing ${list(missing)}`] : []),
    ...(added.length > 0 ? [`not in the run ${list(added)}`] : []),
    ...(changed.length > 0 ? [`with other arguments ${list(changed)}`] : []),
  ];
  return parts.length === 0 ? undefined : parts.join('; ');
}
