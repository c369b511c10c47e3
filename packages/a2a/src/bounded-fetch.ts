import { A2AAgentError } from './a2a-agent-error';

/**
 * `fetch` whose response bodies stop with an `A2AAgentError` past `maxBytes` (counted as they arrive, so a
 * peer that streams without end is cut off too). Headers from `headers` are added to every request.
 */
export function boundedFetch(
  base: typeof fetch,
  options: { maxBytes: number; headers: Record<string, string>; url: string },
): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(options.headers)) headers.set(name, value);
    const response = await base(input, { ...init, headers });
    if (!response.body) return response;
    let seen = 0;
    const limit = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > options.maxBytes) {
          controller.error(
            new A2AAgentError(
              `The A2A agent at ${options.url} sent more than maxResponseBytes=${options.maxBytes} bytes in one answer: it was cut off. Raise maxResponseBytes if the agent is trusted to answer at length.`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
