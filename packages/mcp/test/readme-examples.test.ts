import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script of the repository, without types.
import { runnableBlocks } from '../../../scripts/readme-blocks.mjs';

const packageDir = path.resolve(import.meta.dirname, '..');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const blocks = runnableBlocks(fs.readFileSync(path.join(packageDir, 'README.md'), 'utf8')) as {
  code: string;
  line: number;
}[];

// scripts/readme-examples.mjs runs these inside the package folder; a user runs them from their project.
describe('the README examples run from any folder', () => {
  it.each(blocks.map((block) => [block.line, block.code] as const))('README.md:%i', (line, code) => {
    const file = path.join(packageDir, `.readme-any-folder-${line}.mts`);
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-mcp-readme-'));
    fs.writeFileSync(file, code);
    try {
      const result = spawnSync(process.execPath, ['--conditions=@bridle/source', '--import', tsx, file], {
        cwd,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
      expect(result.stdout).toContain('notes__search_notes');
    } finally {
      fs.rmSync(file, { force: true });
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });
});
