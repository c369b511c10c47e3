// An owning process: connects to the v1 test server, starts a grandchild through it, prints both pids,
// then exits with process.exit while the connection is still open.
import { connectMcp } from '../../src/index';

const connection = await connectMcp(
  { name: 'v1', command: process.execPath, args: [new URL('./v1-server.mjs', import.meta.url).pathname] },
  { timeoutMs: 30_000, onWarning: () => undefined },
);
const tools = await connection.tools();
const context = { signal: new AbortController().signal, callId: 'c', runId: 'r', idempotencyKey: 'r:c' };
const call = (name: string) => tools.find((tool) => tool.name === name)?.execute({}, context);
console.log(
  JSON.stringify({ server: Number(await call('v1__pid')), grandchild: Number(await call('v1__grandchild')) }),
);
process.exit(0);
