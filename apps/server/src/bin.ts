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

/** A port that cannot be taken is the user's setting to change: the line that says which and how, else none. */
function listenProblem(error: unknown): string | undefined {
  const { code, port, address } = (error ?? {}) as NodeJS.ErrnoException & { port?: number; address?: string };
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return undefined;
  const where = `port ${port ?? '?'}${address ? ` on ${address}` : ''}`;
  const why =
    code === 'EADDRINUSE'
      ? `${where} is already in use (another bridle-server, or another program, listens there)`
      : `${where} needs privileges this user does not have (ports below 1024)`;
  return `Cannot listen: ${why}. Set PORT to another port (PORT=0 takes any free one), or stop the program that holds it.`;
}

main().catch((error: unknown) => {
  const problem = listenProblem(error);
  const message = problem ?? (BridleError.isInstance(error) ? error.message : `Cannot start: ${errorMessage(error)}`);
  process.stderr.write(`bridle-server: ${message}\n`);
  process.exitCode = problem || (BridleError.isInstance(error) && error.code === 'invalid_config') ? 2 : 1;
});
