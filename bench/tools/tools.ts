/**
 * Per-call cost of the pure parts of @bridle/tools: the calculator's parser and the SSRF address checker,
 * plus one guarded http_fetch round trip to a loopback server (allowPrivateNetworks) for scale.
 * Run: npx tsx bench/tools/tools.ts   (from /work/main)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkAddress, evaluateExpression, httpFetchTool } from '../../packages/tools/src/index';

function measure(label: string, iterations: number, body: (index: number) => void): void {
  for (let index = 0; index < Math.min(iterations, 1_000); index += 1) body(index); // warm up
  const start = process.hrtime.bigint();
  for (let index = 0; index < iterations; index += 1) body(index);
  const microseconds = Number(process.hrtime.bigint() - start) / 1_000 / iterations;
  console.log(`${label.padEnd(52)} ${microseconds.toFixed(2).padStart(8)} µs/call`);
}

const short = '2 * (3 + 4) ^ 2 / sqrt(16)';
const long = `${'(1 + 2 * 3 - 4 / 5) + '.repeat(40)}1`; // ~900 characters
measure(`evaluateExpression (${short.length} chars)`, 100_000, () => evaluateExpression(short));
measure(`evaluateExpression (${long.length} chars)`, 10_000, () => evaluateExpression(long));
const addresses = ['8.8.8.8', '127.0.0.1', '2606:4700:4700::1111', '::ffff:10.0.0.1', '0x7f.1', 'fd00:ec2::254'];
measure('checkAddress (mixed canonical and odd spellings)', 100_000, (index) =>
  checkAddress(addresses[index % addresses.length]!),
);

const server = http.createServer((_request, response) => response.end('x'.repeat(1_000)));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const tool = httpFetchTool({ allowPrivateNetworks: true });
const context = { signal: new AbortController().signal, callId: 'bench', runId: 'bench' };
const rounds = 300;
const start = process.hrtime.bigint();
for (let index = 0; index < rounds; index += 1) await tool.execute({ url }, context);
console.log(
  `${'http_fetch loopback GET, 1 kB body (new connection)'.padEnd(52)} ${(Number(process.hrtime.bigint() - start) / 1_000 / rounds).toFixed(2).padStart(8)} µs/call`,
);
server.close();
