#!/usr/bin/env node
import { loadEnv } from '@bridle/models';
import { BridleError } from '@bridle/protocol';
import { startServer } from './start-server';

/** `bridle-server`: settings come from the environment and `.env` in the working directory (see README). */
async function main(): Promise<void> {
  loadEnv(process.cwd());
  const server = await startServer();
  server.app.log.info(`bridle-server listening on ${server.url}`);
}

main().catch((error: unknown) => {
  const message = BridleError.isInstance(error) ? error.message : `Cannot start: ${(error as Error).message}`;
  process.stderr.write(`bridle-server: ${message}\n`);
  process.exitCode = BridleError.isInstance(error) && error.code === 'invalid_config' ? 2 : 1;
});
