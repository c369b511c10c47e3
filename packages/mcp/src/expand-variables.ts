import { ConfigError } from '@bridle/protocol';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` in `text` from `env`. An unset `${VAR}` (no default) is a
 * `ConfigError` naming the variable and `where`. A default is used when the variable is unset or
 * empty, as in the shell. Values are inserted as they are (never expanded again).
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, where: string): string {
  return text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    if (value === '') return value;
    throw new ConfigError(
      `${where} uses \${${name}}, but ${name} is not set. Set it in the environment, or write \${${name}:-default} to give a default.`,
    );
  });
}
