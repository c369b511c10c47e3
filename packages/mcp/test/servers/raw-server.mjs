// A hand-written MCP server (no SDK, starts fast) for fault tests and the bench. Speaks the 2025-11-25
// protocol over stdio. Flags: --garbage (non-JSON lines on stdout), --tools N (N extra echo tools, each
// with its own schema), --ttl MS (a ttlMs on the tools/list result).
// Tools: echo, pid, hang (never answers that call), freeze (blocks the process forever), exit (dies mid-call).
import readline from 'node:readline';

const argv = process.argv.slice(2);
const garbage = argv.includes('--garbage');
const option = (name) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : undefined);
const extra = option('--tools') ?? 0;
const ttlMs = option('--ttl');
const schema = { type: 'object', properties: { text: { type: 'string' } } };
const tools = [
  { name: 'echo', description: 'Echoes text', inputSchema: schema, annotations: { readOnlyHint: true } },
  { name: 'pid', description: 'Process id', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'hang', description: 'Never answers', inputSchema: { type: 'object' } },
  { name: 'freeze', description: 'Blocks the server', inputSchema: { type: 'object' } },
  { name: 'exit', description: 'Exits mid-call', inputSchema: { type: 'object' } },
];
for (let index = 0; index < extra; index++) {
  tools.push({
    name: `tool_${index}`,
    description: `Echo number ${index}`,
    inputSchema: schema,
    annotations: { readOnlyHint: true },
  });
}
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const text = (value) => ({ content: [{ type: 'text', text: value }] });
if (garbage) process.stdout.write('raw server starting (not JSON)\n');

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const { id, method, params } = message;
  if (garbage) process.stdout.write(`got ${method}\n`);
  if (method === 'initialize') {
    send({
      id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'raw', version: '1.0.0' },
      },
    });
  } else if (method === 'ping') send({ id, result: {} });
  else if (method === 'tools/list') send({ id, result: { tools, ...(ttlMs === undefined ? {} : { ttlMs }) } });
  else if (method === 'tools/call') {
    const name = params.name;
    if (name === 'echo' || name.startsWith('tool_')) send({ id, result: text(params.arguments?.text ?? '') });
    else if (name === 'pid') send({ id, result: text(String(process.pid)) });
    else if (name === 'hang') return;
    else if (name === 'freeze') for (;;);
    else if (name === 'exit') process.exit(3);
    else send({ id, error: { code: -32602, message: `Unknown tool: ${name}` } });
  } else send({ id, error: { code: -32601, message: 'Method not found' } });
});
