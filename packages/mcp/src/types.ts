import type { Tool } from '@bridle/protocol';

/** A local MCP server, started as a child process and spoken to over stdio. */
export interface McpStdioServer {
  /** Names the server: tool names become `<name>__<tool>`. */
  name: string;
  /** `stdio` (the default when `command` is given). */
  type?: 'stdio';
  /** The executable (no shell: arguments are passed as they are). */
  command: string;
  args?: string[];
  /**
   * Extra environment variables for the server. The child gets only these plus a safe default set
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`): never the rest of the owner's environment.
   * Values are secrets: they never appear in errors, warnings or progress messages.
   */
  env?: Record<string, string>;
  /** The working directory of the server (default: the owner's). */
  cwd?: string;
}

/** A remote MCP server over Streamable HTTP (falling back to the older HTTP+SSE transport), or SSE only. */
export interface McpHttpServer {
  name: string;
  /** `http`: Streamable HTTP only; `sse`: the older HTTP+SSE transport only; absent: Streamable HTTP, then SSE. */
  type?: 'http' | 'sse';
  /** `http:` or `https:` URL of the MCP endpoint. */
  url: string;
  /** Sent with every request (e.g. `Authorization`). Values are secrets, like `env`. */
  headers?: Record<string, string>;
}

/** One MCP server, as `loadMcpConfig` returns it and `connectMcp` takes it. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** How far the annotations an MCP server puts on its tools are believed. */
export type McpTrust = 'annotations' | 'all' | 'none';

/** A progress notification from a server during one tool call. */
export interface McpProgress {
  /** The server's name. */
  server: string;
  /** The Bridle tool name (`<server>__<tool>`). */
  tool: string;
  /** The tool call this progress belongs to (the run's call id). */
  callId: string;
  runId: string;
  /** Increases with each notification. */
  progress: number;
  total?: number;
  /** The server's message, with secrets redacted. */
  message?: string;
}

/** Options of {@link connectMcp}. */
export interface McpConnectOptions {
  /** Bounds every request, the connect included, in milliseconds. Default 60000. */
  timeoutMs?: number;
  /** `'annotations'` (default): `readOnlyHint` is believed, other tools require approval. See the README. */
  trust?: McpTrust;
  /** Progress notifications of running tool calls. A throwing listener is ignored. */
  onProgress?: (progress: McpProgress) => void;
  /** Warnings (a tool skipped for an invalid schema, a line of garbage on stdout). Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** Largest single message read from a stdio server, in bytes. Default 16 MiB. */
  maxMessageBytes?: number;
}

/** A live connection to one MCP server. */
export interface McpConnection {
  readonly name: string;
  /**
   * The server's tools as Bridle tools, cached until the server says its list changed, its `ttlMs`
   * passes or it reconnects. A tool whose input schema does not compile is skipped with a warning.
   * When the server cannot be reached, the last list is returned (its calls then fail naming the
   * server). Rejects with `ConfigError` when two tools get the same Bridle name.
   */
  tools(): Promise<Tool[]>;
  /** Ends the connection; a stdio server's whole process group is killed. Idempotent. */
  close(): Promise<void>;
}
