// A test MCP server on the v2 SDK (@modelcontextprotocol/server): both protocol eras through serveStdio.
// Flags: --ttl MS (a cache hint on tools/list for 2026-era clients).
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const argv = process.argv.slice(2);
const ttlIndex = argv.indexOf('--ttl');
const ttlMs = ttlIndex === -1 ? undefined : Number(argv[ttlIndex + 1]);

serveStdio(() => {
  const server = new McpServer(
    { name: 'v2-test-server', version: '2.0.0' },
    {
      capabilities: { tools: { listChanged: true } },
      ...(ttlMs === undefined ? {} : { cacheHints: { 'tools/list': { ttlMs, cacheScope: 'public' } } }),
    },
  );
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back',
      inputSchema: fromJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'add_tool',
    { description: 'Adds the tool "late"', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
    async () => {
      server.registerTool(
        'late',
        { description: 'Added later', inputSchema: fromJsonSchema({ type: 'object', properties: {} }) },
        async () => ({ content: [{ type: 'text', text: 'late' }] }),
      );
      return { content: [{ type: 'text', text: 'added' }] };
    },
  );
  return server;
});
