// What `bridle-server` loads before it listens, with the default `memory:` store and no Redis: the queue (BullMQ,
// ioredis) and the SQL stores' drivers load only when their settings ask for them. Every module read is start-up
// CPU, paid by each server process and each replica.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverBinArgs } from './server-processes';

const RECORDER = fileURLToPath(new URL('../../../test-support/record-imports.mjs', import.meta.url));

/** The module URLs a `bridle-server` with `env` imported until it listened. */
async function importsUntilListening(env: Record<string, string>): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'bridle-server-imports-')), 'imports.txt');
  const child = spawn(process.execPath, ['--import', RECORDER, ...serverBinArgs()], {
    cwd: mkdtempSync(join(tmpdir(), 'bridle-server-cwd-')),
    env: { PATH: process.env.PATH ?? '', PORT: '0', BRIDLE_TEST_IMPORTS_FILE: file, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (data: Buffer) => {
      output += data;
      if (output.includes('bridle-server listening on')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', () => reject(new Error(`bridle-server exited before listening:\n${output}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return readFileSync(file, 'utf8').trim().split('\n');
}

describe('start-up imports', () => {
  it('a server with the memory: store and no Redis loads neither the queue nor a SQL driver', async () => {
    const urls = await importsUntilListening({ BRIDLE_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: 'sk-test' });
    // The recorder works: the server's own entry and Fastify are in the list.
    expect(urls.some((url) => url.endsWith('/dist/bin.js'))).toBe(true);
    expect(urls.some((url) => /\/fastify\//.test(url))).toBe(true);
    const heavy = urls.filter((url) =>
      /\/node_modules\/(\.pnpm\/)?(bullmq|ioredis|pg|better-sqlite3)[@/+]|\/packages\/queue\//.test(url),
    );
    expect(heavy).toEqual([]);
  });
});
