import { describeValue } from './describe-value';
import { TranscriptError } from './errors';
import type { Message } from './types';

function fail(index: number, problem: string): never {
  throw new TranscriptError(`Invalid transcript at messages[${index}]: ${problem}`);
}

function checkShape(message: unknown, index: number): asserts message is Message {
  if (typeof message !== 'object' || message === null)
    fail(index, `expected a message object, got ${describeValue(message)}`);
  const m = message as Record<string, unknown>;
  if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'tool')
    fail(index, `role must be "user", "assistant" or "tool", got ${describeValue(m.role)}`);
  if (typeof m.content !== 'string') fail(index, `content must be a string, got ${describeValue(m.content)}`);
  if (m.role === 'assistant' && m.toolCalls !== undefined && !Array.isArray(m.toolCalls))
    fail(index, `toolCalls must be an array when present, got ${describeValue(m.toolCalls)}`);
  if (m.role === 'tool' && (typeof m.callId !== 'string' || typeof m.isError !== 'boolean'))
    fail(index, 'a tool message needs a string callId and a boolean isError');
}

/**
 * Throws `TranscriptError` unless `messages` is a valid transcript: the first message is a user message;
 * every assistant message with tool calls is followed directly by exactly one tool message per call
 * (any order, matching `callId`) and nothing else in between; no tool message elsewhere; call ids unique
 * within a batch. Linear in the transcript length.
 */
export function assertTranscript(messages: readonly unknown[]): asserts messages is Message[] {
  if (!Array.isArray(messages))
    throw new TranscriptError(`A transcript must be an array of messages, got ${describeValue(messages)}`);
  if (messages.length === 0) throw new TranscriptError('A transcript must start with a user message, but it is empty');
  checkShape(messages[0], 0);
  if ((messages[0] as Message).role !== 'user')
    fail(0, `a transcript must start with a user message, not "${(messages[0] as Message).role}"`);
  let index = 0;
  while (index < messages.length) {
    const message = messages[index];
    checkShape(message, index);
    if (message.role === 'tool')
      fail(
        index,
        `tool message for call ${JSON.stringify(message.callId)} does not answer the assistant message just before it`,
      );
    index++;
    if (message.role !== 'assistant' || !message.toolCalls || message.toolCalls.length === 0) continue;
    const open = new Set<string>();
    for (const call of message.toolCalls) {
      const id = (call as { id?: unknown } | null)?.id;
      if (typeof id !== 'string') fail(index - 1, `every tool call needs a string id, got ${describeValue(id)}`);
      if (open.has(id)) fail(index - 1, `tool call id ${JSON.stringify(id)} appears twice in one batch`);
      open.add(id);
    }
    const batchStart = index - 1;
    for (let answered = 0; answered < message.toolCalls.length; answered++, index++) {
      if (index >= messages.length)
        fail(
          batchStart,
          `the batch of ${message.toolCalls.length} tool calls is missing results for ${[...open].join(', ')}`,
        );
      const result = messages[index];
      checkShape(result, index);
      if (result.role !== 'tool')
        fail(index, `expected a tool result for ${[...open].join(', ')}, got a ${result.role} message`);
      if (!open.delete(result.callId))
        fail(
          index,
          `tool result for ${JSON.stringify(result.callId)} answers no open call of the batch at messages[${batchStart}]`,
        );
    }
  }
}
