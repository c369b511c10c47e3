/**
 * @bridle/mcp costs: the per-call overhead of an MCP tool (an echo over stdio, through connectMcp, the v2
 * SDK Client and a child process) against the same echo as an in-process Bridle tool, and the time of
 * `tools()` for a server with 200 tools (tools/list round trip + 200 schemas checked by the registry),
 * cold (first call) and cached. The server is packages/mcp/test/servers/raw-server.mjs (no SDK, so its
 * own cost is small and fixed). Run: pnpm bench mcp
 */
import path from 'node:path';
import { connectMcp } from '../../packages/mcp/src/index';
import type { Tool, ToolContext } from '../../packages/protocol/src/index';

const server = path.resolve('packages/mcp/test/servers/raw-server.mjs');
const context: ToolContext = {
  signal: new AbortController().signal,
  callId: 'bench',
  runId: 'bench',
  idempotencyKey: 'bench:bench',
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function timeCalls(label: string, tool: Tool, rounds: number): Promise<number> {
  for (let index = 0; index < 50; index += 1) await tool.execute({ text: `warm ${index}` }, context);
  const samples: number[] = [];
  for (let index = 0; index < rounds; index += 1) {
    const start = process.hrtime.bigint();
    await tool.execute({ text: `hello ${index}` }, context);
    samples.push(Number(process.hrtime.bigint() - start) / 1_000);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  console.log(
    `${label.padEnd(44)} mean ${mean.toFixed(1).padStart(8)} µs   p50 ${percentile(samples, 50).toFixed(1).padStart(8)} µs   p99 ${percentile(samples, 99).toFixed(1).padStart(8)} µs`,
  );
  return mean;
}

const inProcess: Tool = {
  name: 'echo',
  description: 'Echoes text',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  readOnly: true,
  execute: async (args) => (args as { text: string }).text,
};

const rounds = 2_000;
const echoServer = await connectMcp({ name: 'bench', command: process.execPath, args: [server] });
const echo = (await echoServer.tools()).find((tool) => tool.name === 'bench__echo') as Tool;
const local = await timeCalls('echo, in process', inProcess, rounds);
const remote = await timeCalls('echo, MCP over stdio (connectMcp)', echo, rounds);
console.log(`${'MCP per-call overhead'.padEnd(44)} ${(remote - local).toFixed(1).padStart(13)} µs/call`);
await echoServer.close();

// Each of the 200 extra tools has its own schema. `--ttl 0` makes every tools() call fetch the list
// again: the refresh measures the round trip and conversion with the schemas already compiled.
const first: number[] = [];
const refresh: number[] = [];
for (let round = 0; round < 5; round += 1) {
  const connection = await connectMcp({
    name: 'big',
    command: process.execPath,
    args: [server, '--tools', '200', '--ttl', '0'],
  });
  let start = process.hrtime.bigint();
  const tools = await connection.tools();
  first.push(Number(process.hrtime.bigint() - start) / 1e6);
  start = process.hrtime.bigint();
  await connection.tools();
  refresh.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (tools.length !== 205) throw new Error(`expected 205 tools, got ${tools.length}`);
  await connection.close();
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
console.log(
  `${'tools(), 205 tools, first call (compiles)'.padEnd(44)} median ${median(first).toFixed(1).padStart(8)} ms   (min ${Math.min(...first).toFixed(1)}, max ${Math.max(...first).toFixed(1)})`,
);
console.log(
  `${'tools(), 205 tools, list fetched again'.padEnd(44)} median ${median(refresh).toFixed(1).padStart(8)} ms   (min ${Math.min(...refresh).toFixed(1)}, max ${Math.max(...refresh).toFixed(1)})`,
);
