// Benchmark: the server CPU a request spends on tenant checks (target: under 10 µs per request).
// Run: pnpm bench tenant-checks (bundled from sources with esbuild, like the published build).
// A) the key lookup (SHA-256 of the bearer key, a map lookup), the route's scope and the tenant's quotas,
//    as the API's hook does them for every request, for a tenant without request quotas;
// B) the same plus counting the request in the in-process ledger (a tenant with requestsPerMinute).
// Reported: µs per request (CPU time of this process over the loop, divided by the requests), min and
// median of 7 rounds. Nothing is asserted.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryQuotaLedger } from '@bridle/core';
import { authorizeRequest, scopeOfRoute, TenantAuth } from '../../apps/server/src/tenant-auth';
import { keyDigest } from '../../apps/server/src/tenant-keys';
import { checkRequestQuotas, hasRequestQuotas } from '../../apps/server/src/tenant-quotas';

const keys = Array.from({ length: 1000 }, (_, index) => ({
  name: `key-${index}`,
  tenant: `tenant-${index % 50}`,
  scopes: ['chat', 'runs:read'],
  sha256: keyDigest(`secret-${index}-0123456789abcdef`),
}));
const file = join(mkdtempSync(join(tmpdir(), 'bridle-bench-keys-')), 'keys.json');
writeFileSync(file, JSON.stringify({ keys, tenants: { 'tenant-1': { requestsPerMinute: 1e9 } } }));
const auth = new TenantAuth({ keysFile: file });
const ledger = new MemoryQuotaLedger();

const requestOf = (index: number) =>
  ({
    method: 'POST',
    headers: { authorization: `Bearer secret-${index}-0123456789abcdef` },
    routeOptions: { url: '/api/chat' },
    bridleCaller: null,
  }) as never;
const quiet = requestOf(0); // tenant-0: no request quotas
const counted = requestOf(1); // tenant-1: requestsPerMinute

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

async function measure(label: string, request: never, count: number): Promise<void> {
  const rounds: number[] = [];
  for (let round = 0; round < 7; round++) {
    const start = cpuMicros();
    for (let index = 0; index < count; index++) {
      const { method, routeOptions } = request as { method: string; routeOptions: { url: string } };
      const scope = scopeOfRoute(method, routeOptions.url);
      const caller = authorizeRequest(auth, request, scope);
      const quotas = auth.quotasOf(caller.tenant);
      if (hasRequestQuotas(quotas)) await checkRequestQuotas(ledger, caller, quotas, true);
    }
    rounds.push((cpuMicros() - start) / count);
  }
  rounds.sort((a, b) => a - b);
  console.log(
    `${label}: min ${(rounds[0] as number).toFixed(2)} µs, median ${(rounds[3] as number).toFixed(2)} µs per request`,
  );
}

await measure('A) key, scope and quotas lookup (no request quota)', quiet, 100_000);
await measure('B) the same, counting requestsPerMinute in the process ledger', counted, 100_000);
auth.close();
