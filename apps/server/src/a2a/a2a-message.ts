import type { Message } from '@a2a-js/sdk';
import { ServerError } from '../server-error';
import type { ReceivedDecision } from '../turns/checked-decisions';

/** What an A2A message asks: a prompt (its text parts), or decisions on a paused task's calls. */
export type A2ATurn =
  | { kind: 'prompt'; prompt: string }
  | { kind: 'decide'; decisions: Record<string, ReceivedDecision> };

const bad = (message: string) => new ServerError('bad_request', message);

function readDecision(callId: string, value: unknown): ReceivedDecision {
  if (typeof value === 'boolean') return { approved: value };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { approved, digest, reason } = value as Record<string, unknown>;
    if (typeof approved === 'boolean' && (digest === undefined || typeof digest === 'string')) {
      return {
        approved,
        ...(digest === undefined ? {} : { digest }),
        ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
      };
    }
  }
  throw bad(`approvals[${JSON.stringify(callId)}] must be true, false or { "approved": boolean, "digest"?: string }.`);
}

/**
 * Reads an A2A message: its text parts are a prompt; a data part `{ approvals: { <callId>: true | false |
 * { approved, digest } } }` decides the calls a paused task waits on. Files and URLs are refused. Throws a
 * `bad_request` `ServerError` (an A2A `RequestMalformedError`) naming the part.
 */
export function readA2ATurn(message: Message | undefined): A2ATurn {
  if (!message) throw bad('params.message is required: the message to send to the agent.');
  const texts: string[] = [];
  let decisions: Record<string, ReceivedDecision> | undefined;
  for (const [index, part] of message.parts.entries()) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') {
      const value = content.value as { approvals?: unknown } | null;
      const approvals = value?.approvals;
      if (typeof approvals !== 'object' || approvals === null || Array.isArray(approvals)) {
        throw bad(
          `message.parts[${index}] is a data part without "approvals": the only data this agent reads is { "approvals": { "<callId>": true | false } }.`,
        );
      }
      decisions ??= {};
      for (const [callId, decision] of Object.entries(approvals)) decisions[callId] = readDecision(callId, decision);
    } else {
      throw bad(
        `message.parts[${index}] is a ${content?.$case ?? 'empty'} part: this agent reads text parts (and approvals as data).`,
      );
    }
  }
  if (decisions !== undefined) {
    if (Object.keys(decisions).length === 0) throw bad('"approvals" decides no call: name each pending callId.');
    return { kind: 'decide', decisions };
  }
  const prompt = texts.join('\n');
  if (prompt.trim() === '') throw bad('The message has no text: send at least one text part.');
  return { kind: 'prompt', prompt };
}
