/** The `@anthropic-ai/sdk` module, as `import('@anthropic-ai/sdk')` gives it. */
export type AnthropicSdk = typeof import('@anthropic-ai/sdk');

let loading: Promise<AnthropicSdk> | undefined;

/**
 * The Anthropic SDK, imported on first use and then shared: importing it reads some 320 modules (its own and
 * `@opentelemetry/api`, ~0.3 s), which a program that creates a model but never calls it (a CLI's `--help`, a
 * config check) should not pay.
 */
export function loadAnthropicSdk(): Promise<AnthropicSdk> {
  loading ??= import('@anthropic-ai/sdk');
  return loading;
}
