/** The `openai` SDK's module, as `import('openai')` gives it. */
export type OpenAISdk = typeof import('openai');

let loading: Promise<OpenAISdk> | undefined;

/**
 * The `openai` SDK, imported on first use and then shared: importing it reads some 150 modules (~0.1 s), which a
 * program that creates a model but never calls it (a CLI's `--help`, a config check) should not pay.
 */
export function loadOpenAISdk(): Promise<OpenAISdk> {
  loading ??= import('openai');
  return loading;
}
