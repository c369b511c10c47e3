// A test MCP server over Streamable HTTP on 127.0.0.1, for restarts: --port N --era legacy|modern.
// legacy: the v1 SDK with stateful sessions (Mcp-Session-Id), as most deployed servers run; an unknown
// session id gets 404 "Session not found", as the spec says. modern: the v2 SDK's createMcpHandler,
// 2026-07-28 only. Tool: whoami (this process's pid). Prints "listening" on stdout once it listens.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

const argv = process.argv.slice(2);
const option = (name) => argv[argv.indexOf(name) + 1];
const port = Number(option('--port'));
const era = option('--era');
const whoami = { content: [{ type: 'text', text: `pid:${process.pid}` }] };

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

function legacyHandler() {
  const sessions = new Map();
  const makeServer = () => {
    const server = new Server({ name: 'restartable-legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'whoami', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => whoami);
    return server;
  };
  return async (request, response) => {
    const raw = await readBody(request);
    const body = raw === undefined ? undefined : JSON.parse(raw.toString('utf8'));
    const id = request.headers['mcp-session-id'];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      if (id !== undefined || request.method !== 'POST' || !isInitializeRequest(body)) {
        response.writeHead(id === undefined ? 400 : 404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
        );
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(request, response, body);
  };
}

function modernHandler() {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'restartable-modern', version: '2.0.0' });
      server.registerTool(
        'whoami',
        { inputSchema: fromJsonSchema({ type: 'object' }), annotations: { readOnlyHint: true } },
        async () => whoami,
      );
      return server;
    },
    { legacy: 'reject', responseMode: 'json' },
  );
  return async (request, response) => {
    const body = await readBody(request);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      for (const item of [value].flat()) if (item !== undefined) headers.append(name, item);
    }
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1:${port}${request.url}`, { method: request.method, headers, body }),
    );
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body !== null) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  };
}

const handle = era === 'modern' ? modernHandler() : legacyHandler();
http
  .createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('listening\n'));
