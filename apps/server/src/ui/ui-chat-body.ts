import { ServerError } from '../server-error';
import type { ReceivedDecision } from '../turns/checked-decisions';

/** A part of a UI message as `useChat` sends it (only the fields this route reads). */
export interface UiPart {
  type: string;
  text?: string;
  toolCallId?: string;
  state?: string;
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/** A UI message (`UIMessage` of the `ai` package) as `useChat` sends it. */
export interface UiMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  parts: UiPart[];
}

/** The body `DefaultChatTransport` posts: the chat id, its messages, the trigger; `skill` is Bridle's. */
export interface UiChatBody {
  id: string;
  messages: UiMessage[];
  trigger?: string;
  messageId?: string;
  skill?: string;
}

/** JSON Schema of the body: the envelope only (what a turn needs is checked by {@link readUiTurn}). */
export const UI_CHAT_BODY = {
  type: 'object',
  required: ['id', 'messages'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200, description: 'the chat id (useChat `id`): one session' },
    messages: {
      type: 'array',
      minItems: 1,
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['role', 'parts'],
        properties: {
          id: { type: 'string', maxLength: 200 },
          role: { type: 'string', enum: ['system', 'user', 'assistant'] },
          parts: {
            type: 'array',
            maxItems: 10_000,
            items: { type: 'object', required: ['type'], properties: { type: { type: 'string', maxLength: 200 } } },
          },
        },
      },
    },
    trigger: { type: 'string', maxLength: 100 },
    messageId: { type: 'string', maxLength: 200 },
    skill: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

/** What a request asks: a new prompt, or decisions on the calls the chat's paused run waits on. */
export type UiTurn =
  | { kind: 'prompt'; prompt: string }
  | { kind: 'decide'; decisions: Record<string, ReceivedDecision> };

const bad = (message: string) => new ServerError('bad_request', message);

function isToolPart(part: UiPart): boolean {
  return part.type === 'dynamic-tool' || part.type.startsWith('tool-');
}

/**
 * Reads the turn from the last message (the session's earlier messages are the server's, not the client's):
 * a user message's text parts are the prompt; an assistant message's tool parts in state
 * `approval-responded` are decisions (`approval.id` is the pending call's digest). Throws a 400 naming the
 * problem otherwise, before anything runs.
 */
export function readUiTurn(body: UiChatBody): UiTurn {
  if (body.trigger !== undefined && body.trigger !== 'submit-message') {
    throw bad(
      `trigger "${body.trigger}" is not supported: this route keeps the conversation server-side and takes "submit-message" only (send a new message instead of regenerating).`,
    );
  }
  const index = body.messages.length - 1;
  const last = body.messages[index] as UiMessage;
  if (last.role === 'user') {
    const texts: string[] = [];
    for (const [position, part] of last.parts.entries()) {
      if (part.type === 'text') {
        if (typeof part.text !== 'string') throw bad(`messages[${index}].parts[${position}].text must be a string.`);
        texts.push(part.text);
      } else if (part.type !== 'step-start') {
        throw bad(
          `messages[${index}].parts[${position}] has type "${part.type}": a user message may hold text parts only (files are not supported by this route).`,
        );
      }
    }
    const prompt = texts.join('\n');
    if (prompt.trim() === '')
      throw bad(`messages[${index}] (the user's) has no text: send { type: "text", text } parts.`);
    return { kind: 'prompt', prompt };
  }
  if (last.role === 'assistant') {
    const decisions: Record<string, ReceivedDecision> = {};
    for (const [position, part] of last.parts.entries()) {
      if (!isToolPart(part) || part.state !== 'approval-responded') continue;
      const where = `messages[${index}].parts[${position}]`;
      const approval = part.approval;
      if (typeof part.toolCallId !== 'string' || part.toolCallId === '')
        throw bad(`${where}.toolCallId must be a string.`);
      if (!approval || typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') {
        throw bad(`${where}.approval must be { id: string, approved: boolean } (from addToolApprovalResponse).`);
      }
      decisions[part.toolCallId] = {
        approved: approval.approved,
        digest: approval.id,
        ...(typeof approval.reason === 'string' && approval.reason !== '' ? { reason: approval.reason } : {}),
      };
    }
    if (Object.keys(decisions).length === 0) {
      throw bad(
        `messages[${index}] is the assistant's and answers no approval: send a user message, or answer the approval requests with addToolApprovalResponse.`,
      );
    }
    return { kind: 'decide', decisions };
  }
  throw bad(
    `messages[${index}] has role "${last.role}": the last message must be the user's (or the assistant's, answering approvals).`,
  );
}
