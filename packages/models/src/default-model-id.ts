import { ConfigError } from '@bridle/protocol';

/** Environment variables, as in `process.env`. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Used when only `OPENAI_API_KEY` is set. */
export const DEFAULT_OPENAI_MODEL = 'openai:gpt-4o-mini';
/** Used when only `ANTHROPIC_API_KEY` is set. */
export const DEFAULT_ANTHROPIC_MODEL = 'anthropic:claude-sonnet-4-6';

function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/**
 * The model id to use when none was given: `BRIDLE_MODEL`, else `openai:gpt-4o-mini` when
 * `OPENAI_API_KEY` is set, else `anthropic:claude-sonnet-4-6` when `ANTHROPIC_API_KEY` is set.
 * Throws `ConfigError` naming the variables to set when none is. The id is not validated here.
 */
export function defaultModelId(env: Environment = process.env): string {
  if (isSet(env.BRIDLE_MODEL)) return env.BRIDLE_MODEL.trim();
  if (isSet(env.OPENAI_API_KEY)) return DEFAULT_OPENAI_MODEL;
  if (isSet(env.ANTHROPIC_API_KEY)) return DEFAULT_ANTHROPIC_MODEL;
  throw new ConfigError(
    'No model configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY (in the environment or in .env), ' +
      'or set BRIDLE_MODEL / pass --model (e.g. openai-compatible:http://localhost:11434/v1#llama3.2 for a local server).',
  );
}
