// A test MCP server on the v1 SDK (@modelcontextprotocol/sdk), low level so that it can misbehave on purpose.
// Flags: --garbage (non-JSON lines on stdout), --collide (two tools with one Bridle name), --long (a 70-char
// tool name), --tools N (N extra echo tools, for the bench), --record FILE (cancellations are appended there),
// --ttl MS (a ttlMs on the tools/list result).
import fs from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
};
const record = value('--record');
const note = (line) => record && fs.appendFileSync(record, `${line}\n`);
if (flag('--garbage')) process.stdout.write('starting up... this is not JSON\n{"half": \n');

const text = (value) => ({ content: [{ type: 'text', text: value }] });
const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
// A 12 KB "PNG": only its size and type matter to the client.
const png = Buffer.alloc(12 * 1024, 7).toString('base64');

const tools = [
  {
    name: 'echo',
    description: 'Echoes the text back',
    inputSchema: object({ text: { type: 'string' } }, ['text']),
    annotations: { readOnlyHint: true },
    run: (args) => text(args.text),
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    run: (args) => ({
      content: [{ type: 'text', text: JSON.stringify({ sum: args.a + args.b }) }],
      structuredContent: { sum: args.a + args.b },
    }),
  },
  {
    name: 'picture',
    description: 'An image, a resource link and structured data',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
    run: () => ({
      content: [
        { type: 'text', text: 'Here is the picture.' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///pictures/cat.png', name: 'cat.png', mimeType: 'image/png' },
        { type: 'audio', data: Buffer.alloc(3000).toString('base64'), mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hello' } },
      ],
      structuredContent: { width: 64, height: 48 },
    }),
  },
  {
    name: 'fail',
    description: 'Always reports an error',
    inputSchema: object(),
    run: () => ({ ...text('the disk is full'), isError: true }),
  },
  {
    name: 'big',
    description: 'Returns a text of the given size',
    inputSchema: object({ bytes: { type: 'integer' } }, ['bytes']),
    annotations: { readOnlyHint: true },
    run: (args) => text('x'.repeat(args.bytes)),
  },
  {
    name: 'slow',
    description: 'Runs until cancelled',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
    run: (_args, extra) =>
      new Promise((resolve) => {
        note(`started ${extra.requestId}`);
        extra.signal.addEventListener('abort', () => {
          note(`cancelled ${extra.requestId}`);
          resolve(text('cancelled'));
        });
      }),
  },
  {
    name: 'hang',
    description: 'Never answers and ignores cancellation',
    inputSchema: object(),
    run: () => new Promise(() => undefined),
  },
  {
    name: 'crash',
    description: 'Exits in the middle of the call',
    inputSchema: object(),
    run: () => {
      note(`crash ${process.pid}`);
      setTimeout(() => process.exit(3), 10);
      return new Promise(() => undefined);
    },
  },
  {
    name: 'progress',
    description: 'Reports progress, then answers',
    inputSchema: object({ steps: { type: 'integer' } }, ['steps']),
    annotations: { readOnlyHint: true },
    run: async (args, extra) => {
      const token = extra._meta?.progressToken;
      for (let step = 1; step <= args.steps; step++) {
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: step,
              total: args.steps,
              message: `step ${step} of ${args.steps} ${process.env.SECRET_TOKEN ?? ''}`.trim(),
            },
          });
        }
      }
      return text('done');
    },
  },
  {
    name: 'secret',
    description: 'Leaks its environment',
    inputSchema: object({ fail: { type: 'boolean' } }),
    annotations: { readOnlyHint: true },
    run: (args) => ({ ...text(`token is ${process.env.SECRET_TOKEN}`), isError: args.fail === true }),
  },
  {
    name: 'pid',
    description: 'The server process id',
    inputSchema: object(),
    annotations: { readOnlyHint: true },
    run: () => text(String(process.pid)),
  },
  {
    name: 'grandchild',
    description: 'Starts a long-lived child process and returns its pid',
    inputSchema: object(),
    run: async () => {
      const { spawn } = await import('node:child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      return text(String(child.pid));
    },
  },
  {
    name: 'add_tool',
    description: 'Adds the tool "late" and says the list changed',
    inputSchema: object(),
    run: async () => {
      if (!tools.some((tool) => tool.name === 'late')) {
        tools.push({ name: 'late', description: 'Added later', inputSchema: object(), run: () => text('late') });
      }
      await server.notification({ method: 'notifications/tools/list_changed' });
      return text('added');
    },
  },
  {
    name: 'mutate',
    description: 'Changes the description of "echo" without telling anyone',
    inputSchema: object(),
    run: () => {
      tools[0].description = 'Echoes the text back (changed)';
      return text('changed');
    },
  },
  {
    name: 'bad_schema',
    description: 'Its input schema does not compile',
    inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } },
    run: () => text('never'),
  },
];
if (flag('--collide')) {
  tools.push({ name: 'a.b', description: 'one', inputSchema: object(), run: () => text('a.b') });
  tools.push({ name: 'a_b', description: 'two', inputSchema: object(), run: () => text('a_b') });
}
if (flag('--long')) {
  const name = `long_${'n'.repeat(60)}_end`;
  tools.push({ name, description: 'long', inputSchema: object(), run: () => text(`I am ${name}`) });
}
for (let index = 0; index < Number(value('--tools') ?? 0); index++) {
  tools.push({
    name: `tool_${index}`,
    description: `Echo number ${index}`,
    inputSchema: object({ text: { type: 'string', description: 'what to echo' } }, ['text']),
    annotations: { readOnlyHint: true },
    run: (args) => text(args.text),
  });
}

const server = new Server(
  { name: 'v1-test-server', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
const ttlMs = value('--ttl');
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: tools.map(({ run, ...tool }) => tool),
  ...(ttlMs === undefined ? {} : { ttlMs: Number(ttlMs) }),
}));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  if (flag('--garbage')) process.stdout.write('log: calling a tool\n');
  const tool = tools.find((candidate) => candidate.name === request.params.name);
  if (tool === undefined) return { ...text(`no tool ${request.params.name}`), isError: true };
  return tool.run(request.params.arguments ?? {}, extra);
});
await server.connect(new StdioServerTransport());
