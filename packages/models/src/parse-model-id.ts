import { ConfigError, describeValue } from '@bridle/protocol';

/** The providers a model id can name. */
export type ModelProvider = 'openai' | 'anthropic' | 'openai-compatible';

/**
 * A parsed model id. `baseURL` is set only for `openai-compatible:<baseURL>#<model>`; the short form
 * `openai-compatible:<model>` leaves it out (the server comes from `OPENAI_COMPATIBLE_BASE_URL`).
 */
export interface ModelSpec {
  provider: ModelProvider;
  /** The provider's model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** The server of an `openai-compatible` id, e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
}

const EXAMPLES =
  'openai:gpt-4o-mini, anthropic:claude-sonnet-4-6 or openai-compatible:http://localhost:11434/v1#llama3.2';

/**
 * Parses a model id: `openai:<model>`, `anthropic:<model>`, `openai-compatible:<baseURL>#<model>` (the
 * base URL must be http or https) or `openai-compatible:<model>` (no `#`, so it survives an unquoted `.env`
 * line, where `#` starts a comment; the server comes from `OPENAI_COMPATIBLE_BASE_URL`). Throws
 * `ConfigError` naming the id and the accepted forms; a base URL with its `#<model>` cut off says why that
 * happens and both fixes.
 */
export function parseModelId(id: unknown): ModelSpec {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new ConfigError(`Invalid model id ${describeValue(id)}: expected a non-empty string such as ${EXAMPLES}.`);
  }
  const trimmed = id.trim();
  const colon = trimmed.indexOf(':');
  if (colon <= 0) {
    throw new ConfigError(`Invalid model id "${trimmed}": expected <provider>:<model>, such as ${EXAMPLES}.`);
  }
  const provider = trimmed.slice(0, colon);
  const rest = trimmed.slice(colon + 1);
  switch (provider) {
    case 'openai':
    case 'anthropic':
      if (rest === '' || /\s/.test(rest)) {
        throw new ConfigError(
          `Invalid model id "${trimmed}": the model name after "${provider}:" must be non-empty without spaces, e.g. ${provider === 'openai' ? 'openai:gpt-4o-mini' : 'anthropic:claude-sonnet-4-6'}.`,
        );
      }
      return { provider, model: rest };
    case 'openai-compatible':
      return parseCompatible(trimmed, rest);
    default:
      throw new ConfigError(
        `Unknown model provider "${provider}" in "${trimmed}": use openai, anthropic or openai-compatible (${EXAMPLES}).`,
      );
  }
}

function parseCompatible(id: string, rest: string): ModelSpec {
  if (!rest.includes('#') && !rest.includes('://')) {
    if (rest === '' || /\s/.test(rest))
      throw new ConfigError(
        `Invalid model id "${id}": expected openai-compatible:<model> (with OPENAI_COMPATIBLE_BASE_URL set) or openai-compatible:<baseURL>#<model>, e.g. openai-compatible:llama3.2.`,
      );
    return { provider: 'openai-compatible', model: rest };
  }
  if (!rest.includes('#')) {
    throw new ConfigError(
      `Invalid model id "${id}": there is no #<model> after the base URL. Written unquoted in a .env file, "#" starts a comment and cuts the model name off. ` +
        `Fix: quote the value (BRIDLE_MODEL="openai-compatible:${rest}#<model>"), or set OPENAI_COMPATIBLE_BASE_URL=${rest} and BRIDLE_MODEL=openai-compatible:<model>.`,
    );
  }
  const hash = rest.lastIndexOf('#');
  const baseURL = hash < 0 ? '' : rest.slice(0, hash);
  const model = hash < 0 ? '' : rest.slice(hash + 1);
  if (baseURL === '' || model === '' || /\s/.test(model)) {
    throw new ConfigError(
      `Invalid model id "${id}": expected openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://localhost:11434/v1#llama3.2.`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new ConfigError(
      `Invalid model id "${id}": "${baseURL}" is not a URL; write the server's base URL, e.g. http://localhost:11434/v1.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`Invalid model id "${id}": the base URL must use http or https, not ${url.protocol}`);
  }
  return { provider: 'openai-compatible', model, baseURL };
}
