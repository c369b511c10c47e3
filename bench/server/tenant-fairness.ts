// Benchmark: fairness between tenants. A quiet tenant sends POST /api/chat one request at a time while another
// tenant floods the same server with many connections; the quiet tenant's p95 latency and its refused
// requests (503 busy / 429) are compared with the same requests on an idle server.
// Run: pnpm bench tenant-fairness (bundled from sources with esbuild, like the published build).
// The model answers after 20 ms (a provider's latency, not CPU), so runs hold their slots as real ones do;
// the server has its default 16 run slots and a memory store. The flood runs in a child process (its own
// event loop and CPU), 48 keep-alive connections, each sending its next request as soon as it has an answer.
// Each configuration is measured in 3 rounds of 200 quiet requests; reported: the quiet tenant's p95 (ms) of
// its answered requests, min and median over rounds, the share of its requests refused (median), the flood's answered requests per second,
// and the machine's load average. Nothing is asserted.
import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, keyDigest } from '@bridle/server';
import { scriptedModel } from '@bridle/testing';

const QUIET_KEY = 'quiet-secret-0123456789abcdef';
const FLOOD_KEY = 'flood-secret-0123456789abcdef';
const ROUNDS = 3;
const QUIET_REQUESTS = 200;
const FLOOD_CONNECTIONS = 48;

/** POSTs a chat; resolves its status. */
function chat(agent: Agent, url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ prompt: 'hello' });
    const req = request(
      `${url}/api/chat`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// The flood's child process: sends until told to stop, then reports its answered requests and seconds.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: how the benchmark hands its child the server; benchmarks are not turbo tasks
const floodUrl = process.env.BRIDLE_BENCH_FLOOD_URL;
if (floodUrl !== undefined) {
  const agent = new Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  let stop = false;
  let answered = 0;
  process.on('message', () => {
    stop = true;
  });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: FLOOD_CONNECTIONS }, async () => {
      while (!stop) {
        if ((await chat(agent, floodUrl, FLOOD_KEY)) === 200) answered += 1;
        // A refused request is retried after a short pause, as a client honouring Retry-After briefly would.
        else await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  );
  process.send?.({ answered, seconds: (performance.now() - started) / 1000 });
  agent.destroy();
  process.exit(0);
}

const percentile = (sorted: number[], share: number) => sorted[Math.ceil(share * sorted.length) - 1] as number;

async function quietRound(url: string): Promise<{ p95: number; refused: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  let refused = 0;
  for (let index = 0; index < QUIET_REQUESTS; index++) {
    const start = performance.now();
    const status = await chat(agent, url, QUIET_KEY);
    // A refusal answers at once: only answered requests count in the latency.
    if (status === 200) latencies.push(performance.now() - start);
    else refused += 1;
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { p95: latencies.length === 0 ? Number.NaN : percentile(latencies, 0.95), refused: refused / QUIET_REQUESTS };
}

async function measure(label: string, env: Record<string, string>, flood: boolean): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'bridle-bench-fairness-')), 'keys.json');
  const keys = [
    { name: 'quiet', tenant: 'quiet', scopes: ['chat'], sha256: keyDigest(QUIET_KEY) },
    { name: 'flood', tenant: 'flood', scopes: ['chat'], sha256: keyDigest(FLOOD_KEY) },
  ];
  writeFileSync(file, JSON.stringify({ keys, tenants: {} }));
  const model = scriptedModel(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { content: 'hi', usage: { inputTokens: 1, outputTokens: 1 } };
  });
  const server = createServer({
    model,
    skills: [],
    logger: false,
    port: 0,
    store: 'memory:',
    env: { BRIDLE_API_KEYS_FILE: file, ...env },
  });
  const url = await server.listen();
  const p95s: number[] = [];
  const refusals: number[] = [];
  const rates: number[] = [];
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const child = flood
      ? fork(process.argv[1] as string, { env: { ...process.env, BRIDLE_BENCH_FLOOD_URL: url } })
      : undefined;
    // Let the flood fill the server before the quiet tenant starts.
    if (child) await new Promise((resolve) => setTimeout(resolve, 500));
    const { p95, refused } = await quietRound(url);
    if (child) {
      const report = new Promise<{ answered: number; seconds: number }>((resolve) => child.once('message', resolve));
      child.send('stop');
      const { answered, seconds } = await report;
      rates.push(answered / seconds);
    }
    p95s.push(p95);
    refusals.push(refused);
    loads.push(loadavg()[0] as number);
  }
  await server.shutdown();
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const [p95Min, p95Median] = [sorted(p95s)[0] as number, sorted(p95s)[1] as number];
  const refusedMedian = sorted(refusals)[1] as number;
  console.log(
    `${label}: quiet p95 min ${p95Min.toFixed(1)} ms, median ${p95Median.toFixed(1)} ms; quiet refused (median) ${(refusedMedian * 100).toFixed(1)}%` +
      (rates.length > 0 ? `; flood answered ${(sorted(rates)[1] as number).toFixed(0)} req/s (median)` : '') +
      `; load average ${sorted(loads)[1]?.toFixed(2)}`,
  );
}

await measure('A) quiet tenant alone', {}, false);
await measure(
  'B) under a flood, no per-tenant cap (BRIDLE_MAX_RUNS_PER_TENANT=16)',
  { BRIDLE_MAX_RUNS_PER_TENANT: '16' },
  true,
);
await measure('C) under a flood, the default per-tenant cap (half the run slots)', {}, true);
