import { type BridleConfig, parseModelId } from '@bridle/models';
import type { Tool } from '@bridle/protocol';
import { redactCredentials } from '@bridle/protocol/internal';
import type { RunJob, WorkerAgent } from '@bridle/queue';
import { type AgentFlags, type AgentSetup, buildAgentSetup } from '../agent-setup';

/** The skill names a worker offers: `--skill` values (or the config's), else the default of `buildAgentSetup`. */
function offeredSkills(flags: AgentFlags, config: BridleConfig): string[] {
  const workspace = flags.workspace ?? config.workspace;
  const configured = config.skill === undefined ? [] : Array.isArray(config.skill) ? config.skill : [config.skill];
  const names = [...(flags.skill ?? configured)];
  if (workspace !== undefined && !names.includes('coding')) names.push('coding');
  if (names.length === 0) names.push('assistant');
  return names;
}

function endpointOf(modelId: string): string | undefined {
  const spec = parseModelId(modelId);
  return spec.provider === 'openai-compatible' ? spec.baseURL : undefined;
}

/**
 * The worker's `agent` callback. A job may name any model id of a provider whose endpoint the worker's own
 * settings chose (the official ones, or `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` from the worker's
 * environment); an `openai-compatible:<baseURL>#model` only with the base URL of the worker's own model.
 * A job's skill must be one the worker offers. Setups are built once per (model, skill).
 */
export function workerAgents(
  own: AgentSetup,
  flags: AgentFlags,
  context: { env: Record<string, string | undefined>; cwd: string },
  config: BridleConfig,
  extraTools: readonly Tool[],
): (job: RunJob) => Promise<WorkerAgent> {
  const offered = offeredSkills(flags, config);
  const ownEndpoint = endpointOf(own.modelId);
  const setups = new Map<string, Promise<AgentSetup>>();
  return async (job) => {
    const endpoint = endpointOf(job.model);
    // Jobs name an endpoint without its credentials (a producer strips them: Redis need not hold them), so
    // endpoints are compared without them, and the worker's own endpoint, with its credentials, is called.
    if (endpoint !== undefined && redactCredentials(endpoint) !== redactCredentials(ownEndpoint ?? ''))
      throw new Error(
        `model ${redactCredentials(job.model)} points at ${redactCredentials(endpoint)}, an endpoint this worker's settings did not choose (it runs ${redactCredentials(own.modelId)}): start a worker with --model for that endpoint to run such jobs.`,
      );
    const modelId =
      endpoint === undefined ? job.model : `openai-compatible:${ownEndpoint}#${parseModelId(job.model).model}`;
    if (job.skill !== undefined && !offered.includes(job.skill))
      throw new Error(
        `skill "${job.skill}" is not offered by this worker (it offers ${offered.join(', ')}): start a worker with --skill ${job.skill}.`,
      );
    const key = `${modelId}\n${job.skill ?? ''}`;
    let setup = setups.get(key);
    if (!setup) {
      setup =
        modelId === own.modelId && job.skill === undefined
          ? Promise.resolve(own)
          : buildAgentSetup(
              { ...flags, model: modelId, ...(job.skill === undefined ? {} : { skill: [job.skill] }) },
              context,
              config,
            );
      setups.set(key, setup);
      // A failed setup (a missing key) is not cached: the next job may find it fixed.
      setup.catch(() => setups.delete(key));
    }
    const ready = await setup;
    return {
      model: ready.model,
      tools: [...ready.tools, ...extraTools],
      ...(ready.system === undefined ? {} : { system: ready.system }),
      ...ready.limits,
      // Nobody can answer a prompt on a worker: calls that need approval are denied, unless --yes.
      ...(flags.yes ? { approve: () => true } : {}),
    };
  };
}
