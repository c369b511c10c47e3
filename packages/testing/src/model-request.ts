import type { Message, ModelRequest, ModelStreamPart, ToolDefinition } from '@bridle/protocol';

/** A `ModelRequest` for calling a model directly in a test: a fresh signal unless one is given. */
export function modelRequest(
  messages: Message[],
  extra: { system?: string; tools?: ToolDefinition[]; signal?: AbortSignal } = {},
): ModelRequest {
  return {
    messages,
    tools: extra.tools ?? [],
    signal: extra.signal ?? new AbortController().signal,
    ...(extra.system === undefined ? {} : { system: extra.system }),
  };
}

/** Every part of a model stream, in order. */
export async function collectStream(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** What `promise` rejects with; throws (failing the test) when it resolves instead. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
