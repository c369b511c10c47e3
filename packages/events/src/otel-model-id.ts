import type { OtelAttributes } from './otel-types';

/**
 * The GenAI attributes of a model id: `gen_ai.provider.name` (the part before the first `:`) and
 * `gen_ai.request.model`. For `openai-compatible:<baseURL>#<model>` the model is the part after `#`, and
 * the server's host and port become `server.address` / `server.port`: the URL itself (which may hold
 * credentials in its user info or query string) never goes into a span.
 */
export function modelIdAttributes(id: string): { model: string; attributes: OtelAttributes } {
  const separator = id.indexOf(':');
  if (separator <= 0) return { model: id, attributes: { 'gen_ai.request.model': id } };
  const provider = id.slice(0, separator);
  let model = id.slice(separator + 1);
  const attributes: OtelAttributes = { 'gen_ai.provider.name': provider };
  if (model.includes('://')) {
    const hash = model.lastIndexOf('#');
    const base = hash >= 0 ? model.slice(0, hash) : model;
    model = hash >= 0 ? model.slice(hash + 1) : '';
    try {
      const url = new URL(base);
      attributes['server.address'] = url.hostname.replace(/^\[|\]$/g, '');
      const port =
        url.port === '' ? (url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : 0) : Number(url.port);
      if (port > 0) attributes['server.port'] = port;
    } catch {
      // Not a URL after all: leave the server out rather than guess.
    }
  }
  attributes['gen_ai.request.model'] = model;
  return { model, attributes };
}
