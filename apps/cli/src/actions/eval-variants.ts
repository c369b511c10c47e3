import type { EvalVariant } from '@bridle/evals';
import type { BridleConfig } from '@bridle/models';
import { redactCredentials } from '@bridle/protocol/internal';
import { buildAgentSetup, chooseModelId } from '../agent-setup';
import { createApprover } from '../approval-prompt';
import type { CommandContext } from '../command-context';
import type { EvalFlags } from './eval-flags';

/**
 * Every `--model` with every `--skill` (`a,b`: one variant with both), in the order given; named by the model id
 * without its credentials, so a key never reaches the report, the progress lines or the `--out` file.
 */
export function variantTargets(
  flags: EvalFlags,
  env: Record<string, string | undefined>,
  config: BridleConfig,
): { name: string; modelId: string; skills?: string[] }[] {
  const models = flags.model ?? [chooseModelId(undefined, env, config)];
  const skills = flags.skill ?? [undefined];
  return models.flatMap((modelId) =>
    skills.map((skill) => {
      const names = skill
        ?.split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');
      return {
        name:
          names === undefined || flags.skill === undefined
            ? redactCredentials(modelId)
            : `${redactCredentials(modelId)} + ${names.join(',')}`,
        modelId,
        ...(names === undefined ? {} : { skills: names }),
      };
    }),
  );
}

/** The in-process variants: each its own model, skills, tools and limits (as `bridle run` builds them). */
export async function inProcessVariants(
  context: CommandContext,
  flags: EvalFlags,
  config: BridleConfig,
): Promise<EvalVariant[]> {
  const { io, errorStyle: style } = context;
  const variants: EvalVariant[] = [];
  for (const target of variantTargets(flags, io.env, config)) {
    const setup = await buildAgentSetup(
      { ...flags, model: target.modelId, ...(target.skills === undefined ? {} : { skill: target.skills }) },
      io,
      config,
    );
    variants.push({
      name: target.name,
      agent: {
        model: setup.model,
        tools: setup.tools,
        ...(setup.system === undefined ? {} : { system: setup.system }),
        ...setup.limits,
        // Cases run unattended: without --yes (or approval: "yes" in the settings) calls that need approval are denied.
        approve: createApprover({
          policy: flags.yes ? 'yes' : (config.approval ?? 'ask'),
          whyNotAsked: 'an eval asks nobody',
          stderr: io.stderr,
          style,
        }),
      },
    });
  }
  return variants;
}
