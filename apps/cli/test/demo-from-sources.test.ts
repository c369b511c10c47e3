import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliEnv } from './cli-process';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe("pnpm demo (the README's first command)", () => {
  it('runs the CLI from its sources: no package needs a build first', async () => {
    const scripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts.demo).toContain('apps/cli/src/bin.ts');
    // As a person runs it: pnpm (on PATH, as the README installs it) at the clone's root.
    const { stdout, stderr } = await promisify(execFile)('pnpm', ['--silent', 'demo'], {
      cwd: root,
      env: cliEnv(),
      timeout: 60_000,
    });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^✓ completed · 7 steps · 6 tool calls/m);
    expect(stdout).toMatch(/^✗ tool_limit: /m);
    expect(stdout).toContain('Demo complete.');
  }, 60_000);
});
