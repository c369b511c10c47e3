import type { FinishReason, Message } from '@bridle/protocol';
import { toJsonLine } from './to-json-line';

/**
 * `text` cut to at most `max` characters, the last being `…` when something was cut. Never splits a
 * surrogate pair.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `value` as JSON text (BigInts and circular references survive, see `toJsonLine`); never throws. */
export function jsonText(value: unknown): string {
  try {
    return toJsonLine(value ?? null).slice(0, -1);
  } catch {
    return '[unserializable]';
  }
}

/** The GenAI semconv `gen_ai.system_instructions` value: `[{ type: 'text', content }]` as JSON. */
export function systemInstructions(text: string, max: number): string {
  return JSON.stringify([{ type: 'text', content: truncate(text, max) }]);
}

/** The GenAI semconv `gen_ai.input.messages` value for one user prompt, as JSON. */
export function userMessages(text: string, max: number): string {
  return JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: truncate(text, max) }] }]);
}

/** The GenAI semconv `gen_ai.output.messages` value for one assistant text, as JSON. */
export function assistantMessages(text: string, finishReason: OutputFinishReason, max: number): string {
  return JSON.stringify([
    { role: 'assistant', parts: [{ type: 'text', content: truncate(text, max) }], finish_reason: finishReason },
  ]);
}

/** The `finish_reason` values of the GenAI semconv output messages. */
export type OutputFinishReason = 'stop' | 'length' | 'content_filter' | 'tool_call' | 'error';

/**
 * A model call's finish reason as the GenAI semconv output messages spell it: the provider's when it said
 * one the convention knows (`tool_calls` is `tool_call` there), else `tool_call` when the response asked
 * for tools and `stop` when it did not.
 */
export function outputFinishReason(reason: FinishReason | undefined, toolCalls: number): OutputFinishReason {
  if (reason === 'tool_calls') return 'tool_call';
  if (reason === 'stop' || reason === 'length' || reason === 'content_filter' || reason === 'error') return reason;
  return toolCalls > 0 ? 'tool_call' : 'stop';
}

/** At most this many of a transcript's newest messages go into `gen_ai.input.messages`. */
export const MAX_INPUT_MESSAGES = 50;

/**
 * The GenAI semconv `gen_ai.input.messages` value for a transcript (a run started from `messages`), as
 * JSON: its newest {@link MAX_INPUT_MESSAGES} messages, each text cut to `max` characters.
 */
export function transcriptMessages(messages: readonly Message[], max: number): string {
  return JSON.stringify(
    messages.slice(-MAX_INPUT_MESSAGES).map((message) => {
      if (message.role === 'tool') {
        return {
          role: 'tool',
          parts: [{ type: 'tool_call_response', id: message.callId, response: truncate(message.content, max) }],
        };
      }
      const parts: unknown[] =
        message.content === '' ? [] : [{ type: 'text', content: truncate(message.content, max) }];
      if (message.role === 'assistant') {
        for (const call of message.toolCalls ?? []) {
          parts.push({
            type: 'tool_call',
            id: call.id,
            name: call.name,
            arguments: truncate(jsonText(call.arguments), max),
          });
        }
      }
      return { role: message.role, parts };
    }),
  );
}
