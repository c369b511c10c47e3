import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureBundle } from '../../../vitest.fixtures';
import { fixture } from './helpers';

// @modelcontextprotocol/conformance 0.1.16 needs Node >= 22 (fs.globSync): it runs on a Node 22 fetched
// from the npm registry as the `node` package (as scripts/node-matrix.mjs does); the client under test
// (test/conformance/client.mts, connectMcp) runs on this Node.
function node22(): string | undefined {
  const probe = spawnSync('npx', ['-y', 'node@22', '-p', 'process.execPath'], { encoding: 'utf8', timeout: 600_000 });
  const binary = probe.stdout?.trim().split('\n').at(-1);
  return probe.status === 0 && binary !== undefined && fs.existsSync(binary) ? binary : undefined;
}

const binary = node22();
if (binary === undefined) {
  if (process.env.CI === 'true') throw new Error('Node 22 (npx -y node@22) is needed for the MCP conformance suite');
  console.warn('SKIPPED: MCP conformance client scenarios need Node 22 (npx -y node@22 failed: offline?)');
}
const suite = path.join(
  path.dirname(fixture('x')),
  '..',
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);
// test/conformance/client.mts, bundled once per run by test/bundle-fixtures.ts.
const client = `${process.execPath} ${fixtureBundle(path.join(import.meta.dirname, '..'), 'test/conformance/client.mts')}`;

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function runScenario(scenario: string): Check[] {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-conformance-'));
  spawnSync(
    binary as string,
    [suite, 'client', '--command', client, '--scenario', scenario, '--timeout', '150000', '-o', out],
    {
      cwd: path.join(path.dirname(fixture('x')), '..', '..'),
      encoding: 'utf8',
      timeout: 170_000,
    },
  );
  const [folder] = fs.readdirSync(out);
  const checks = JSON.parse(fs.readFileSync(path.join(out, folder as string, 'checks.json'), 'utf8')) as Check[];
  fs.rmSync(out, { recursive: true, force: true });
  return checks;
}

const failures = (checks: Check[]) => checks.filter((check) => check.status === 'FAILURE').map((check) => check.id);

describe.skipIf(binary === undefined)('@modelcontextprotocol/conformance client scenarios against connectMcp', () => {
  it.each(['initialize', 'tools_call', 'sse-retry'])('%s passes', (scenario) => {
    const checks = runScenario(scenario);
    expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
    expect(failures(checks)).toEqual([]);
  });

  it('elicitation-sep1034-client-defaults fails as documented: connectMcp answers no elicitation requests', () => {
    const checks = runScenario('elicitation-sep1034-client-defaults');
    expect(checks.find((check) => check.id === 'client-elicitation-sep1034-general')?.errorMessage).toMatch(
      /Method not found/,
    );
    expect(failures(checks).sort()).toEqual(
      [
        'client-elicitation-sep1034-general',
        'client-elicitation-sep1034-boolean-default',
        'client-elicitation-sep1034-enum-default',
        'client-elicitation-sep1034-integer-default',
        'client-elicitation-sep1034-number-default',
        'client-elicitation-sep1034-string-default',
      ].sort(),
    );
  });
});
