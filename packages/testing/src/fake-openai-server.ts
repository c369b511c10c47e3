import { renderChat } from './fake-openai-chat';
import { renderResponses } from './fake-openai-responses';
import type { FakeProviderScript } from './fake-provider-script';
import { type FakeProviderServer, startFakeProviderServer, type WireFormat } from './fake-provider-server';
import { unixNow } from './fake-wire-helpers';

/** Options of {@link fakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Model ids listed by `GET /v1/models`; default `['fake-model']`. */
  models?: readonly string[];
}

const DEFAULT_ERROR: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

let requestCounter = 0;

/**
 * A local OpenAI-compatible server on an ephemeral `127.0.0.1` port. Speaks the Responses API
 * (`POST /v1/responses`), Chat Completions (`POST /v1/chat/completions`), both as JSON and as SSE streams (when the
 * body has `stream: true`), and `GET /v1/models`. Each model call takes the next step of `script` (see
 * {@link FakeProviderStep}) and is recorded in `requests`. Point any OpenAI client at `baseURL` (it ends in `/v1`).
 * Call `close()` when done. Without a script every call fails with an error that says so.
 */
export function fakeOpenAIServer(
  script: FakeProviderScript = [],
  options: FakeOpenAIServerOptions = {},
): Promise<FakeProviderServer> {
  const models = options.models ?? ['fake-model'];
  const format: WireFormat = {
    serverName: 'fakeOpenAIServer',
    basePath: '/v1',
    modelPaths: ['/v1/responses', '/v1/chat/completions'],
    contextLengthMessage:
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
    errorBody: ({ status, message, errorType, code }) => {
      const defaults = DEFAULT_ERROR[status] ?? { type: 'server_error', code: null };
      return { error: { message, type: errorType ?? defaults.type, param: null, code: code ?? defaults.code } };
    },
    headers: () => ({ 'x-request-id': `req_fake${++requestCounter}`, 'openai-processing-ms': '1' }),
    render: (outcome, request, callIndex) =>
      request.path === '/v1/responses'
        ? renderResponses(outcome, request, callIndex)
        : renderChat(outcome, request, callIndex),
    route(method, path, response) {
      if (method !== 'GET' || path !== '/v1/models') return false;
      const data = models.map((id) => ({ id, object: 'model', created: unixNow(), owned_by: 'bridle' }));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ object: 'list', data }));
      return true;
    },
  };
  return startFakeProviderServer(format, script);
}
