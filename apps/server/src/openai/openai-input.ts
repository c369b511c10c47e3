import type { Message } from '@bridle/protocol';
import { ServerError } from '../server-error';

/** What a `/v1` request asks the agent: the client's instructions and the conversation. */
export interface AgentInput {
  /** Text of the client's `system` / `developer` messages (or `instructions`), in order. */
  instructions: string[];
  /** User and assistant turns; the last one is the user's prompt. */
  messages: Message[];
}

/** A chat message as clients send it (only the fields Bridle reads). */
export interface ClientMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  type?: string;
}

const bad = (message: string) => new ServerError('bad_request', message);

/**
 * The text of a message's content: a string, or an array of text parts (`text`, `input_text`,
 * `output_text`) joined without separator. Images, audio and files are refused (400) naming the part.
 */
export function contentText(content: unknown, where: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw bad(`${where}.content must be a string or an array of text parts.`);
  return content
    .map((part: { type?: unknown; text?: unknown }, index) => {
      const type = part?.type;
      if ((type === 'text' || type === 'input_text' || type === 'output_text') && typeof part.text === 'string')
        return part.text;
      throw bad(
        `${where}.content[${index}] is of type ${JSON.stringify(type)}: this server takes text only (parts of type "text").`,
      );
    })
    .join('');
}

/**
 * Turns client messages into the agent's input. `system` and `developer` messages become instructions;
 * `user` and `assistant` messages the conversation. Tool calls and tool results are refused (400): the
 * agent runs its own tools, and a client's tools cannot run here. The conversation must start with a
 * user message and end with one.
 */
export function toAgentInput(messages: readonly ClientMessage[], field: string): AgentInput {
  const instructions: string[] = [];
  const conversation: Message[] = [];
  messages.forEach((message, index) => {
    const where = `${field}[${index}]`;
    if (message.type !== undefined && message.type !== 'message') {
      throw bad(`${where} is of type ${JSON.stringify(message.type)}: this server takes messages only.`);
    }
    const text = contentText(message.content, where);
    switch (message.role) {
      case 'system':
      case 'developer':
        if (text.trim() !== '') instructions.push(text);
        return;
      case 'user':
        conversation.push({ role: 'user', content: text });
        return;
      case 'assistant':
        if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
          throw bad(`${where} has tool_calls: the agent runs its own tools, so send only the text of earlier answers.`);
        }
        conversation.push({ role: 'assistant', content: text });
        return;
      default:
        throw bad(
          `${where}.role is ${JSON.stringify(message.role)}: use system, developer, user or assistant (the agent runs its own tools).`,
        );
    }
  });
  if (conversation[0]?.role !== 'user') throw bad(`${field} must contain a user message before any assistant message.`);
  const last = conversation.at(-1) as Message;
  if (last.role !== 'user') throw bad(`The last message of ${field} must be the user's (the prompt to answer).`);
  if (last.content.trim() === '') throw bad(`The last user message of ${field} is empty.`);
  return { instructions, messages: conversation };
}

/** The system prompt of a `/v1` run: the agent's own, then the client's instructions in a marked section. */
export function systemWithInstructions(
  system: string | undefined,
  instructions: readonly string[],
): string | undefined {
  if (instructions.length === 0) return system;
  const client = `## Instructions from the client\n\n${instructions.join('\n\n')}`;
  return system === undefined ? client : `${system}\n\n${client}`;
}
