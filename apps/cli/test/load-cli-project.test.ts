import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../src/cli-io';
import { main } from '../src/main';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-project-flags-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function io(): CliIO & { err: () => string } {
  let err = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  return {
    stdout: new PassThrough(),
    stderr,
    stdin: new PassThrough(),
    env: { XDG_CONFIG_HOME: join(dir, 'config'), NO_COLOR: '1', OPENAI_API_KEY: 'k' },
    cwd: dir,
    onInterrupt: () => () => {},
    err: () => err,
  };
}

describe('--env-file through main()', () => {
  it('a missing file is exit 2 naming it (Node 20 itself stops the bin earlier: see the CLI README)', async () => {
    const cli = io();
    expect(await main(['run', 'hi', '--env-file', 'nope.env'], cli)).toBe(2);
    expect(cli.err()).toBe(
      `bridle: Cannot read the --env-file ${join(dir, 'nope.env')}: no such file. Give the path of an existing .env file.\n`,
    );
  });
});
