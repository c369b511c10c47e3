import { a2aAgentTool } from '@bridle/a2a';
import { runAgent } from '@bridle/core';
import { scriptedModel } from '@bridle/testing';
import { describe, expect, it } from 'vitest';
import { noteModel, noteTool } from './durable-helpers';
import { startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

/** A parent model that asks the remote agent `question`, then repeats what it heard. */
function parentModel(question: string) {
  return scriptedModel((request) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `heard: ${last.content}`, usage: { inputTokens: 1, outputTokens: 1 } };
    return {
      content: '',
      toolCalls: [{ id: 'ask', name: 'remote_agent', arguments: { message: question } }],
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  });
}

describe("a2aAgentTool (@bridle/a2a) against this server's A2A face", () => {
  it('runs a remote Bridle agent as a sub-agent with a tenant key: its answer and its tokens reach the parent', async () => {
    const { tool } = noteTool();
    const file = writeKeysFile([KEYS.acme]);
    const server = await startTestServer({
      model: noteModel(),
      tools: [tool],
      agent: { approve: () => true },
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const remote = a2aAgentTool(server.url, { headers: bearer(KEYS.acme), timeoutMs: 10_000 });
    const result = await runAgent({ model: parentModel('note bread'), tools: [remote], prompt: 'go' });
    expect(result.status).toBe('completed');
    expect(result.answer).toBe('heard: done: wrote bread');
    // The remote run took two model calls (4+6 and 5+2 tokens); the parent's own were 1+1 twice.
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 10 });
    // The remote run is the acme tenant's, as its key said.
    const runs = (await (await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).json()) as {
      runs: { status: string }[];
    };
    expect(runs.runs.map((run) => run.status)).toEqual(['completed']);
  });

  it('a remote run that waits for approval is an error result the parent model reads', async () => {
    const { tool, written } = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [tool] });
    const remote = a2aAgentTool(server.url, { stream: false });
    const result = await runAgent({ model: parentModel('note salt'), tools: [remote], prompt: 'go' });
    expect(result.answer).toMatch(
      /^heard: .*ended task \S+ input-required: Waiting for approval of write_note \(call call-salt\)/,
    );
    expect(written).toEqual([]);
  });
});
