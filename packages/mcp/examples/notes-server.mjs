#!/usr/bin/env node
// A tiny MCP server (on the official v2 SDK) for the README: a read-only `search_notes` and a
// `add_note` that changes state. Run it with any MCP client: node examples/notes-server.mjs
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const notes = ['buy milk', 'call Ada about the engine'];

serveStdio(() => {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'search_notes',
    {
      description: 'Notes that contain the given word',
      inputSchema: fromJsonSchema({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }),
      annotations: { readOnlyHint: true },
    },
    async ({ word }) => ({
      content: [{ type: 'text', text: notes.filter((note) => note.includes(word)).join('\n') || 'no match' }],
    }),
  );
  server.registerTool(
    'add_note',
    {
      description: 'Adds a note',
      inputSchema: fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
    },
    async ({ text }) => {
      notes.push(text);
      return { content: [{ type: 'text', text: `${notes.length} notes` }] };
    },
  );
  return server;
});
