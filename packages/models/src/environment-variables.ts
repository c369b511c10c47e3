/** The variables a folder's `.env` may set: API keys, and nothing that says where they are sent. */
export const WORKSPACE_KEY_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
];

/**
 * Whether Bridle reads `name` as a setting (not a key): `BRIDLE_*`, `*_BASE_URL`, `HOST`, `PORT`,
 * `OTEL_*`. These choose the model, the endpoint, the bind address, tokens and telemetry targets, so
 * they are never taken from a folder's `.env`.
 */
export function isBridleSetting(name: string): boolean {
  return (
    name.startsWith('BRIDLE_') ||
    name.endsWith('_BASE_URL') ||
    name === 'HOST' ||
    name === 'PORT' ||
    name.startsWith('OTEL_')
  );
}
