import { type BridleServer, createServer } from './create-server';
import type { ServerOptions } from './server-options';

/** Options of {@link startServer}. */
export interface StartServerOptions extends ServerOptions {
  /** Shut down gracefully on SIGTERM and SIGINT; default true. */
  handleSignals?: boolean;
}

/** A listening server. */
export interface StartedServer extends BridleServer {
  /** The base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
}

/**
 * Creates the server, starts listening and (by default) shuts it down gracefully on SIGTERM / SIGINT.
 * Rejects with `ConfigError` for bad settings (see `createServer`) or with the listen error (port in use).
 */
export async function startServer(options: StartServerOptions = {}): Promise<StartedServer> {
  const server = createServer(options);
  const url = await server.listen();
  if (options.handleSignals === false) return { ...server, url };
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    void shutdown();
  };
  const shutdown = () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    return server.shutdown();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return { ...server, url, shutdown };
}
