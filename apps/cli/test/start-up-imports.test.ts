// What `bridle --help` loads: only the command line itself. Every module read costs start-up time (bench/cli/startup
// measures it); this guards the rule that a command loads its work, the SDKs and the store when it runs, not before.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild, tempDir } from './cli-process';

beforeAll(requireBuild);

const RECORDER = fileURLToPath(new URL('../../../test-support/record-imports.mjs', import.meta.url));

/** The module URLs `bridle ...args` imported. */
function importsOf(args: string[]): { code: number | null; urls: string[] } {
  const file = join(tempDir(), 'imports.txt');
  const result = spawnSync(process.execPath, ['--import', RECORDER, BIN, ...args], {
    env: cliEnv({ BRIDLE_TEST_IMPORTS_FILE: file }),
    encoding: 'utf8',
  });
  return { code: result.status, urls: readFileSync(file, 'utf8').trim().split('\n') };
}

describe('start-up imports', () => {
  it('bridle --help loads commander and the command definitions, no SDK, store, schema validator or model', () => {
    const { code, urls } = importsOf(['--help']);
    expect(code).toBe(0);
    // The recorder works: the CLI's own entry and commander are in the list.
    expect(urls.some((url) => url.endsWith('/dist/bin.js'))).toBe(true);
    expect(urls.some((url) => /\/commander\//.test(url))).toBe(true);
    const heavy = urls.filter((url) =>
      /\/node_modules\/(\.pnpm\/)?(openai|@anthropic-ai|ajv|yaml|diff|marked|better-sqlite3|@modelcontextprotocol|@opentelemetry|fastify)[@/+]|\/packages\/(models|core|store|registry|workspace-tools|tools|skills|openai|anthropic|server)\/|\/apps\/server\//.test(
        url,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
