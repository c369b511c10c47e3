import type { Tool } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';

/** A lookup tool that needs no approval. */
export const lookupTool: Tool<{ key: string }, string> = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  readOnly: true,
  execute: ({ key }) => `value of ${key}`,
};

/**
 * `note X` calls write_note (approval), `look X` calls lookup; after a tool result it answers `done: <result>`;
 * `fail` is a model error; otherwise it echoes (streamed).
 */
export function uiModel() {
  return scriptedModel(
    (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `done: ${last.content}`, usage: { inputTokens: 5, outputTokens: 2 } };
      const text = last?.role === 'user' ? last.content : '';
      if (text === 'fail') throw new Error('the model broke');
      const note = /^note (.+)$/.exec(text);
      if (note)
        return {
          content: '',
          toolCalls: [{ id: `call-${note[1]}`, name: 'write_note', arguments: { text: note[1] } }],
          usage: { inputTokens: 4, outputTokens: 6 },
        };
      const look = /^look (.+)$/.exec(text);
      if (look)
        return {
          content: 'Looking it up.',
          toolCalls: [{ id: `look-${look[1]}`, name: 'lookup', arguments: { key: look[1] } }],
          usage: { inputTokens: 4, outputTokens: 6 },
        };
      return { content: `echo: ${text}`, usage: { inputTokens: 2, outputTokens: 3 } };
    },
    { stream: true },
  );
}
