#!/usr/bin/env node
import { loadWorkspaceEnv } from '@bridle/models';
import { BridleError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { startServer } from './start-server';

/**
 * `bridle-server`: settings come from the environment (see README). The working directory's `.env` is
 * the folder's words, not the user's: it gives API keys only (never HOST, PORT, a token or a base URL).
 */
async function main(): Promise<void> {
  loadWorkspaceEnv([process.cwd()]);
  const server = await startServer();
  server.app.log.info(`bridle-server listening on ${server.url}`);
}

main().catch((error: unknown) => {
  const message = BridleError.isInstance(error) ? error.message : `Cannot start: ${errorMessage(error)}`;
  process.stderr.write(`bridle-server: ${message}\n`);
  process.exitCode = BridleError.isInstance(error) && error.code === 'invalid_config' ? 2 : 1;
});
