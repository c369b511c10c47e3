// A test MCP server on the v1 SDK that answers as FastMCP (Python) does: a return value that is not an
// object becomes a text part AND `structuredContent: { result: value }` (a list: one text part per item),
// an object becomes its JSON as text AND itself as structured content.
// --mode both (FastMCP's way, the default) | text (text parts only) | structured (structured content only).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const mode = argv.includes('--mode') ? argv[argv.indexOf('--mode') + 1] : 'both';
const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const wrapped = (type) => ({
  type: 'object',
  properties: { result: type },
  required: ['result'],
  'x-fastmcp-wrap-result': true,
});
const forecastOf = (name) => `Forecast for ${name}: sunny, 21°C`;

const tools = {
  forecast: {
    inputSchema: city,
    outputSchema: wrapped({ type: 'string' }),
    run: ({ city: name }) => ({ value: forecastOf(name), wrap: true }),
  },
  forecasts: {
    inputSchema: { type: 'object', properties: { cities: { type: 'array', items: { type: 'string' } } } },
    outputSchema: wrapped({ type: 'array', items: { type: 'string' } }),
    run: ({ cities }) => ({ value: cities.map(forecastOf), wrap: true }),
  },
  temperature: {
    inputSchema: city,
    outputSchema: wrapped({ type: 'number' }),
    run: () => ({ value: 21, wrap: true }),
  },
  weather: {
    inputSchema: city,
    outputSchema: { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } } },
    run: ({ city: name }) => ({ value: { city: name, celsius: 21 }, wrap: false }),
  },
};

/** FastMCP's text for a value: a string as it is, anything else as indented JSON. */
const textOf = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

const server = new Server({ name: `forecast-${mode}`, version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: Object.entries(tools).map(([name, tool]) => ({
    name,
    description: `The ${name} of a city`,
    inputSchema: tool.inputSchema,
    ...(mode === 'text' ? {} : { outputSchema: tool.outputSchema }),
    annotations: { readOnlyHint: true },
  })),
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const { value, wrap } = tools[request.params.name].run(request.params.arguments);
  const content = (Array.isArray(value) ? value : [value]).map((item) => ({ type: 'text', text: textOf(item) }));
  const structuredContent = wrap ? { result: value } : value;
  if (mode === 'text') return { content };
  if (mode === 'structured') return { content: [], structuredContent };
  return { content, structuredContent };
});
await server.connect(new StdioServerTransport());
