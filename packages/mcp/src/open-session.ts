import { errorMessage } from '@bridle/protocol/internal';
import {
  Client,
  SdkErrorCode,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { describeStderr } from './describe-stderr';
import { ProcessGroupTransport } from './process-group-transport';
import type { McpServerConfig } from './types';
import { untrustedValidator } from './untrusted-validator';

/** What Bridle tells servers about itself. */
const CLIENT_INFO = { name: 'bridle', version: '0.1.0' };

/** One connected client and its transport; replaced whole on a restart. */
export interface Session {
  client: Client;
  transport: Transport;
  /** Set when the transport closed (the process exited, the HTTP session ended). */
  closed: boolean;
  /** How the connection ended, for error messages (not yet redacted). */
  ended(): string;
}

/** How a session is opened. */
export interface SessionOptions {
  timeoutMs: number;
  maxMessageBytes: number;
  onGarbage(line: string): void;
  onListChanged(): void;
}

function transportsFor(server: McpServerConfig, options: SessionOptions): (() => Transport)[] {
  if ('command' in server) {
    return [
      () =>
        new ProcessGroupTransport({
          command: server.command,
          args: server.args ?? [],
          env: { ...getDefaultEnvironment(), ...server.env },
          ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
          maxMessageBytes: options.maxMessageBytes,
          onGarbage: options.onGarbage,
        }),
    ];
  }
  const url = new URL(server.url);
  const requestInit = { headers: { ...server.headers } };
  const streamable = () => new StreamableHTTPClientTransport(url, { requestInit });
  const sse = () => new SSEClientTransport(url, { requestInit });
  if (server.type === 'http') return [streamable];
  if (server.type === 'sse') return [sse];
  return [streamable, sse];
}

/** How a session ended; `atStart`: it never completed the handshake (the server died starting). */
function describeEnd(transport: Transport, fallback: string, atStart: boolean): string {
  if (transport instanceof ProcessGroupTransport) {
    const exit = transport.exitDescription;
    const stderr = atStart
      ? describeStderr(transport.stderrHead, 'first')
      : describeStderr(transport.stderrTail, 'last');
    return [exit === undefined ? fallback : `its process ${exit}`, stderr === '' ? '' : `its stderr: ${stderr}`]
      .filter((part) => part !== '')
      .join('; ');
  }
  return fallback;
}

async function attempt(
  create: () => Transport,
  options: SessionOptions,
  deadline: number,
  negotiate: boolean,
): Promise<Session> {
  const transport = create();
  const client = new Client(CLIENT_INFO, {
    versionNegotiation: negotiate
      ? {
          mode: 'auto',
          // Some 2025-era stdio servers never answer the 2026 probe: keep time for the `initialize` fallback.
          probe: { timeoutMs: Math.max(1, Math.min(5000, Math.floor(options.timeoutMs / 2))) },
        }
      : { mode: 'legacy' },
    listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => options.onListChanged() } },
    jsonSchemaValidator: untrustedValidator,
  });
  const session: Session = {
    client,
    transport,
    closed: false,
    ended: () => describeEnd(transport, 'the connection closed', false),
  };
  client.onclose = () => {
    session.closed = true;
  };
  // Transport-level noise (a stray response id, a dropped SSE stream) is not the caller's concern:
  // failures reach the caller through the request that fails.
  client.onerror = () => undefined;
  const remaining = Math.max(1, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`did not complete the MCP handshake within ${options.timeoutMs} ms`)),
      remaining,
    );
  });
  try {
    await Promise.race([client.connect(transport, { timeout: remaining }), timeout]);
    return session;
  } catch (error) {
    const reason = session.closed || transport instanceof ProcessGroupTransport ? describeEnd(transport, '', true) : '';
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    const message = errorMessage(error);
    throw new Error(reason === '' ? message : `${message} (${reason})`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts (stdio) or reaches (HTTP) a server and completes the MCP handshake within `timeoutMs`,
 * negotiating the 2026-07-28 protocol when the server speaks it and the 2025 family otherwise. Without
 * a `type`, a URL is tried with Streamable HTTP first, then the older HTTP+SSE transport. Rejects with
 * the reason (not yet redacted, not naming the server: the caller adds both).
 */
export async function openSession(server: McpServerConfig, options: SessionOptions): Promise<Session> {
  const deadline = Date.now() + options.timeoutMs;
  const candidates = transportsFor(server, options);
  const failures: string[] = [];
  for (const [index, create] of candidates.entries()) {
    try {
      try {
        return await attempt(create, options, deadline, true);
      } catch (error) {
        // Some 2025-era stdio servers exit on any request before `initialize` (the 2026 probe): start
        // such a server again and speak the 2025 protocol from the first message.
        const probeKilled =
          error instanceof Error &&
          (error.cause as { code?: unknown } | undefined)?.code === SdkErrorCode.EraNegotiationFailed;
        if (!probeKilled || !('command' in server) || Date.now() >= deadline) throw error;
        return await attempt(create, options, deadline, false);
      }
    } catch (error) {
      const message = errorMessage(error);
      failures.push(candidates.length > 1 ? `${index === 0 ? 'Streamable HTTP' : 'SSE'}: ${message}` : message);
      if (Date.now() >= deadline) break;
    }
  }
  throw new Error(failures.join('; '));
}
