// The client under test for @modelcontextprotocol/conformance client scenarios: connects to the URL the
// suite appends with connectMcp, lists the tools and calls each one with the arguments the scenario
// expects. Exits 0 when every call finished (tool errors included), 1 otherwise.
import { connectMcp } from '../../src/index';

const url = process.argv.at(-1) as string;
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const argumentsFor: Record<string, Record<string, unknown>> = { add_numbers: { a: 2, b: 3 } };
const context = { signal: AbortSignal.timeout(20_000), callId: 'c', runId: 'conformance', idempotencyKey: 'x' };

const connection = await connectMcp({ name: 'conformance', url }, { timeoutMs: 20_000, onWarning: () => undefined });
try {
  for (const tool of await connection.tools()) {
    const original = tool.name.replace(/^conformance__/, '');
    const result = await Promise.resolve(tool.execute(argumentsFor[original] ?? {}, context)).catch(
      (error: Error) => `error: ${error.message}`,
    );
    console.log(`${scenario} ${tool.name}: ${String(result).slice(0, 200)}`);
  }
} finally {
  await connection.close();
}
