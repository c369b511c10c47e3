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

/** The run profile a `model` field names; a 404 `model_not_found` (listing the offered ids) otherwise. */
export function agentProfile(context: ServerContext, model: string): RunProfile {
  const skill = model.startsWith(AGENT_MODEL_PREFIX) ? model.slice(AGENT_MODEL_PREFIX.length) : undefined;
  if (skill !== undefined && context.profiles.skillNames.includes(skill)) return context.profiles.get(skill);
  const offered = context.profiles.skillNames.map((name) => `"${AGENT_MODEL_PREFIX}${name}"`).join(', ');
  throw new ServerError(
    'model_not_found',
    `The model ${JSON.stringify(model)} does not exist: this server offers ${offered || 'no agents'} (see GET /v1/models).`,
  );
}

/** The skill of a model id that {@link agentProfile} accepted (`bridle:coding` → `coding`). */
export function agentSkill(model: string): string {
  return model.slice(AGENT_MODEL_PREFIX.length);
}
