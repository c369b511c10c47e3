import type { Message } from '@bridle/protocol';
import { boundToolResult } from './bound-tool-result';

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/**
 * Renders messages as plain text for the summarizing model. Plain text rather than the messages themselves:
 * some providers (Anthropic) refuse tool calls and results in a request that defines no tools, and the
 * summary call must offer none. Each content is bounded to `maxMessageChars`.
 */
export function renderForSummary(messages: readonly Message[], maxMessageChars: number): string {
  const bound = (text: string) => boundToolResult(text, maxMessageChars);
  const parts: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') parts.push(`[user]\n${bound(message.content)}`);
    else if (message.role === 'tool')
      parts.push(
        `[tool ${message.isError ? 'error' : 'result'} ${message.callId} ${message.name}]\n${bound(message.content)}`,
      );
    else {
      const lines = message.content === '' ? [] : [bound(message.content)];
      for (const call of message.toolCalls ?? [])
        lines.push(`[tool call ${call.id}] ${call.name} ${bound(argumentsText(call.arguments))}`);
      parts.push(`[assistant]\n${lines.join('\n')}`);
    }
  }
  return parts.join('\n\n');
}
