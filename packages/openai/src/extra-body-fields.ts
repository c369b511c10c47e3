/** Body fields the adapter owns: `providerOptions` may not set them (a stray `stream` would break `generate`). */
const RESERVED_FIELDS = new Set(['model', 'input', 'instructions', 'messages', 'tools', 'stream', 'stream_options']);

/** `providerOptions` without the fields the adapter owns. */
export function extraBodyFields(providerOptions: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!providerOptions) return {};
  return Object.fromEntries(Object.entries(providerOptions).filter(([key]) => !RESERVED_FIELDS.has(key)));
}
