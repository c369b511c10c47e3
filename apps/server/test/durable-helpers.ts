import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';

/** A fresh SQLite store URL in a temporary folder of its own. */
export async function tempStoreUrl(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'bridle-server-store-'));
  return `sqlite:${join(folder, 'bridle.db')}`;
}

/** A tool that requires approval and counts its calls (the side effect a person must allow). */
export function noteTool() {
  const written: string[] = [];
  const tool: Tool<{ text: string }, string> = {
    name: 'write_note',
    description: 'Writes a note',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    requiresApproval: true,
    execute: ({ text }) => {
      written.push(text);
      return `wrote ${text}`;
    },
  };
  return { tool, written };
}

/**
 * A stateless model (it can serve a server and its restarted successor): a prompt `note <text>` makes
 * it call `write_note` with `{ text }`; after a tool result it answers `done: <result>`; otherwise it echoes.
 */
export function noteModel(options: { id?: string } = {}) {
  return scriptedModel(
    (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `done: ${last.content}`, usage: { inputTokens: 5, outputTokens: 2 } };
      const text = last?.role === 'user' ? last.content : '';
      const match = /^note (.+)$/.exec(text);
      if (!match) return { content: `echo: ${text}`, usage: { inputTokens: 2, outputTokens: 3 } };
      return {
        content: '',
        toolCalls: [{ id: `call-${match[1]}`, name: 'write_note', arguments: { text: match[1] } }],
        usage: { inputTokens: 4, outputTokens: 6 },
      };
    },
    { stream: true, ...(options.id ? { id: options.id } : {}) },
  );
}
