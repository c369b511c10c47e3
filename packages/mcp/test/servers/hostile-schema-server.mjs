// A hand-written MCP server (2025-11-25, stdio) whose schemas try to stall its client: patterns that
// backtrack exponentially on RegExp (`^(a+)+$` against "aaaa…!"), and patterns no linear-time engine
// runs (lookahead), branches that multiply. Tools: match, keys, report (structured content checked by an
// outputSchema), wait (never answers), nest (doubles per level of the arguments), and lookahead,
// lookahead_output and wide (2^40 paths) refused at listing.
import readline from 'node:readline';

const CATASTROPHIC = '^(a+)+$';
const tools = [
  {
    name: 'match',
    description: 'A text the pattern checks',
    inputSchema: { type: 'object', properties: { text: { type: 'string', pattern: CATASTROPHIC } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'keys',
    description: 'Keys the pattern checks',
    inputSchema: { type: 'object', patternProperties: { [CATASTROPHIC]: { type: 'number' } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'report',
    description: 'Structured content against a hostile outputSchema',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { text: { type: 'string', pattern: CATASTROPHIC } } },
    annotations: { readOnlyHint: true },
  },
  { name: 'wait', description: 'Never answers', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  {
    name: 'nest',
    description: 'Recursion whose two branches double the checks at each level of the arguments',
    inputSchema: {
      type: 'object',
      $defs: { n: { anyOf: [0, 1].map(() => ({ type: 'object', properties: { a: { $ref: '#/$defs/n' } } })) } },
      properties: { a: { $ref: '#/$defs/n' } },
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'wide',
    description: 'Branches that double 40 times',
    inputSchema: {
      type: 'object',
      properties: { x: { $ref: '#/$defs/d0' } },
      $defs: Object.fromEntries(
        Array.from({ length: 41 }, (_, level) => [
          `d${level}`,
          level === 40 ? { type: 'string' } : { anyOf: [0, 1].map(() => ({ $ref: `#/$defs/d${level + 1}` })) },
        ]),
      ),
    },
  },
  {
    name: 'lookahead',
    description: 'A pattern with lookahead',
    inputSchema: { type: 'object', properties: { text: { type: 'string', pattern: '^(?=a)a+$' } } },
  },
  {
    name: 'lookahead_output',
    description: 'An output schema with lookahead',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', properties: { text: { type: 'string', pattern: '^(?!b)' } } },
  },
];
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const { id, method, params } = message;
  if (method === 'initialize') {
    send({
      id,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1' },
      },
    });
  } else if (method === 'ping') send({ id, result: {} });
  else if (method === 'tools/list') send({ id, result: { tools } });
  else if (method === 'tools/call') {
    if (params.name === 'wait') return;
    if (params.name === 'report') {
      const text = `${'a'.repeat(100_000)}!`;
      send({ id, result: { content: [{ type: 'text', text }], structuredContent: { text } } });
      return;
    }
    send({ id, result: { content: [{ type: 'text', text: `ran ${params.name}` }] } });
  } else send({ id, error: { code: -32601, message: 'Method not found' } });
});
