import { agentTool } from '@bridle/core';
import { scriptedModel } from '@bridle/testing';
import { noteModel, noteTool } from './durable-helpers';

/** A stateless parent: `delegate <task>` hands the task to `helper`; a tool result is answered `parent: <it>`. */
export function delegatingModel() {
  return scriptedModel(
    (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `parent: ${last.content}`, usage: { inputTokens: 7, outputTokens: 1 } };
      const task = last?.role === 'user' ? last.content.replace(/^delegate /, '') : '';
      return {
        content: '',
        toolCalls: [{ id: 'delegate-1', name: 'helper', arguments: { prompt: task } }],
        usage: { inputTokens: 3, outputTokens: 1 },
      };
    },
    { id: 'scripted:parent' },
  );
}

/**
 * Server options whose agent delegates to `helper`, a sub-agent (agentTool) with `write_note` (requires
 * approval): `delegate note milk` pauses on the sub-agent's `call-milk`. `notes.written` records the notes.
 */
export function subAgentSetup() {
  const notes = noteTool();
  const helper = agentTool({ model: noteModel(), tools: [notes.tool] }, { name: 'helper', description: 'Takes notes' });
  return { notes, options: { model: delegatingModel(), tools: [helper] } };
}
