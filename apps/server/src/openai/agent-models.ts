import type { RunProfile } from '../run-profiles';
import type { ServerContext } from '../server-context';
import { ServerError } from '../server-error';

/** The prefix of the model ids that name this server's agents: `bridle:<skill>`. */
export const AGENT_MODEL_PREFIX = 'bridle:';

/** One entry of `GET /v1/models`. */
export interface OpenAIModel {
  id: string;
  object: 'model';
  /** Unix seconds (when the server started). */
  created: number;
  owned_by: 'bridle';
}

/** The agents this server offers, as OpenAI model objects. */
export function agentModels(context: ServerContext, created: number): OpenAIModel[] {
  return context.profiles.skillNames.map((name) => ({
    id: `${AGENT_MODEL_PREFIX}${name}`,
    object: 'model',
    created,
    owned_by: 'bridle',
  }));
}

/** The agent a `/v1` model id names: its skill and the run profile this server composed for it. */
export interface ClientAgent {
  skill: string;
  profile: RunProfile;
}

/** The agent a `model` field names (`bridle:<skill>`); a 404 `model_not_found` (listing the offered ids) otherwise. */
export function agentFor(context: ServerContext, model: string): ClientAgent {
  const skill = model.startsWith(AGENT_MODEL_PREFIX) ? model.slice(AGENT_MODEL_PREFIX.length) : undefined;
  if (skill !== undefined && context.profiles.skillNames.includes(skill))
    return { skill, profile: context.profiles.get(skill) };
  const offered = context.profiles.skillNames.map((name) => `"${AGENT_MODEL_PREFIX}${name}"`).join(', ');
  throw new ServerError(
    'model_not_found',
    `The model ${JSON.stringify(model)} does not exist: this server offers ${offered || 'no agents'} (see GET /v1/models).`,
  );
}
