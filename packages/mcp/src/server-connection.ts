import { ConfigError, type Tool, type ToolContext } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { ToolRegistry } from '@bridle/registry';
import { type Tool as McpTool, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { convertResult } from './convert-result';
import { openSession, type Session } from './open-session';
import { redact, secretValues } from './redact';
import { mcpToolName } from './tool-name';
import type { McpConnection, McpProgress, McpServerConfig, McpTrust } from './types';

/** Options of a {@link ServerConnection}, defaults applied. */
export interface ResolvedOptions {
  timeoutMs: number;
  trust: McpTrust;
  maxMessageBytes: number;
  onProgress: ((progress: McpProgress) => void) | undefined;
  onWarning: (message: string) => void;
}

interface Listing {
  tools: Tool[];
  fetchedAt: number;
  ttlMs: number | undefined;
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/**
 * One MCP server behind the {@link McpConnection} interface: a cached tool list, calls that become
 * tool errors naming the server, and a restart on the next call after the server died or hung.
 */
export class ServerConnection implements McpConnection {
  readonly name: string;
  readonly #server: McpServerConfig;
  readonly #options: ResolvedOptions;
  readonly #secrets: string[];
  #session: Session | undefined;
  #opening: Promise<Session> | undefined;
  #listing: Listing | undefined;
  #listChanged = false;
  #suspect = false;
  #closed = false;
  #garbageWarned = false;
  #schemas = new Map<string, Record<string, unknown>>();

  private constructor(server: McpServerConfig, options: ResolvedOptions) {
    this.name = server.name;
    this.#server = server;
    this.#options = options;
    this.#secrets = secretValues(server);
  }

  /** Connects eagerly; rejects with an `Error` naming the server (secrets redacted). */
  static async open(server: McpServerConfig, options: ResolvedOptions): Promise<ServerConnection> {
    const connection = new ServerConnection(server, options);
    await connection.#ensureSession();
    return connection;
  }

  #redact(text: string): string {
    return redact(text, this.#secrets);
  }

  #fail(message: string, cause?: unknown): Error {
    return new Error(this.#redact(message), cause === undefined ? undefined : { cause });
  }

  #open(): Promise<Session> {
    this.#opening ??= openSession(this.#server, {
      timeoutMs: this.#options.timeoutMs,
      maxMessageBytes: this.#options.maxMessageBytes,
      onGarbage: (line) => {
        if (this.#garbageWarned) return;
        this.#garbageWarned = true;
        this.#warn(
          `MCP server "${this.name}" wrote a line that is not JSON-RPC to stdout (skipped; a server should log to stderr): ${line.slice(0, 120)}`,
        );
      },
      onListChanged: () => {
        this.#listChanged = true;
      },
    })
      .then((session) => {
        if (this.#closed) {
          void session.client.close().catch(() => undefined);
          throw new Error('the connection was closed');
        }
        this.#session = session;
        this.#suspect = false;
        return session;
      })
      .catch((error: unknown) => {
        throw this.#fail(`MCP server "${this.name}" could not be connected: ${errorMessage(error)}`, error);
      })
      .finally(() => {
        this.#opening = undefined;
      });
    return this.#opening;
  }

  #warn(message: string): void {
    try {
      this.#options.onWarning(this.#redact(message));
    } catch {
      // A throwing listener never changes what the connection does.
    }
  }

  async #drop(session: Session): Promise<void> {
    if (this.#session === session) this.#session = undefined;
    await session.client.close().catch(() => undefined);
    await session.transport.close().catch(() => undefined);
  }

  /** The live session, restarting a server that died, or that hung and does not answer a ping. */
  async #ensureSession(): Promise<Session> {
    if (this.#closed) throw new Error(`MCP server "${this.name}" is closed: connect again with connectMcp.`);
    const session = this.#session;
    if (session !== undefined && !session.closed) {
      if (!this.#suspect) return session;
      try {
        await session.client.ping({ timeout: this.#options.timeoutMs });
        this.#suspect = false;
        return session;
      } catch {
        await this.#drop(session);
      }
    } else if (session !== undefined) {
      await this.#drop(session);
    }
    const restarting = session !== undefined;
    const opened = await this.#open();
    // A reconnect may bring another tool list.
    if (restarting) this.#listChanged = true;
    return opened;
  }

  async tools(): Promise<Tool[]> {
    const listing = this.#listing;
    const fresh =
      listing !== undefined &&
      !this.#listChanged &&
      this.#session !== undefined &&
      !this.#session.closed &&
      (listing.ttlMs === undefined || Date.now() - listing.fetchedAt < listing.ttlMs);
    if (fresh) return listing.tools;
    try {
      const session = await this.#ensureSession();
      this.#listChanged = false;
      const result = await session.client.listTools(undefined, {
        timeout: this.#options.timeoutMs,
        cacheMode: 'refresh',
      });
      const ttl = (result as { ttlMs?: unknown }).ttlMs;
      const tools = this.#convert(result.tools);
      this.#listing = {
        tools,
        fetchedAt: Date.now(),
        ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) && ttl >= 0 ? ttl : undefined,
      };
      return tools;
    } catch (error) {
      if (ConfigError.isInstance(error)) throw error;
      if (listing !== undefined) {
        // Never a silently empty list: the tools stay, and their calls say what is wrong.
        this.#warn(
          `MCP server "${this.name}" could not list its tools again (${errorMessage(error)}); keeping the last list.`,
        );
        return listing.tools;
      }
      throw this.#fail(
        errorMessage(error).startsWith(`MCP server "${this.name}"`)
          ? errorMessage(error)
          : `MCP server "${this.name}" could not list its tools: ${errorMessage(error)}`,
        error,
      );
    }
  }

  #convert(listed: readonly McpTool[]): Tool[] {
    const byName = new Map<string, string>();
    // The registry compiles a schema once per schema object: a refreshed list reuses the objects of
    // the schemas it already had, so only new or changed schemas are compiled again.
    const schemas = new Map<string, Record<string, unknown>>();
    const tools: Tool[] = [];
    for (const mcpTool of listed) {
      const name = mcpToolName(this.name, mcpTool.name);
      const other = byName.get(name);
      if (other !== undefined) {
        throw new ConfigError(
          this.#redact(
            `MCP server "${this.name}" has two tools that both become "${name}": "${other}" and "${mcpTool.name}". Bridle tool names keep only letters, digits, "_" and "-" (at most 64 characters); ask the server's author to rename one, or leave this server out.`,
          ),
        );
      }
      byName.set(name, mcpTool.name);
      const key = JSON.stringify(mcpTool.inputSchema);
      const schema = this.#schemas.get(key) ?? schemas.get(key) ?? (mcpTool.inputSchema as Record<string, unknown>);
      schemas.set(key, schema);
      const tool = this.#toBridleTool(name, mcpTool, schema);
      try {
        // The very check the run's registry makes: a tool that passes here cannot break a run.
        new ToolRegistry([tool]);
      } catch (error) {
        this.#warn(`MCP server "${this.name}": tool "${mcpTool.name}" is skipped: ${errorMessage(error)}`);
        continue;
      }
      tools.push(tool);
    }
    this.#schemas = schemas;
    return tools;
  }

  #toBridleTool(name: string, mcpTool: McpTool, parameters: Record<string, unknown>): Tool {
    const hints = mcpTool.annotations ?? {};
    const trust = this.#options.trust;
    const readOnly = trust !== 'none' && hints.readOnlyHint === true;
    const requiresApproval = trust === 'none' || (trust === 'annotations' && !readOnly);
    const description = mcpTool.description ?? mcpTool.title ?? '';
    const tool: Tool = {
      name,
      description: this.#redact(description),
      parameters,
      readOnly,
      requiresApproval,
      execute: (args, context) => this.#call(mcpTool, name, args, context),
    };
    if (trust !== 'none' && hints.idempotentHint === true) tool.idempotent = true;
    return tool;
  }

  #progress(name: string, context: ToolContext) {
    const listener = this.#options.onProgress;
    if (listener === undefined) return undefined;
    return (progress: { progress: number; total?: number; message?: string }) => {
      const event: McpProgress = {
        server: this.name,
        tool: name,
        callId: context.callId,
        runId: context.runId,
        progress: progress.progress,
      };
      if (progress.total !== undefined) event.total = progress.total;
      if (progress.message !== undefined) event.message = this.#redact(progress.message);
      try {
        listener(event);
      } catch {
        // A throwing listener never changes the call.
      }
    };
  }

  async #call(mcpTool: McpTool, name: string, args: unknown, context: ToolContext): Promise<string> {
    const label = `MCP tool "${mcpTool.name}" on server "${this.name}"`;
    const { signal } = context;
    if (signal.aborted) throw new Error(`${label} was cancelled before it started.`);
    let session: Session;
    try {
      session = await this.#ensureSession();
    } catch (error) {
      throw this.#fail(
        `${errorMessage(error)} (while calling tool "${mcpTool.name}"; it is tried again on the next call)`,
        error,
      );
    }
    const onprogress = this.#progress(name, context);
    let result: Awaited<ReturnType<typeof session.client.callTool>>;
    try {
      result = await session.client.callTool(
        { name: mcpTool.name, arguments: (args ?? {}) as Record<string, unknown> },
        { signal, timeout: this.#options.timeoutMs, ...(onprogress === undefined ? {} : { onprogress }) },
      );
    } catch (error) {
      if (signal.aborted) throw this.#fail(`${label} was cancelled (the server was told).`, error);
      if (isTimeout(error)) {
        this.#suspect = true;
        throw this.#fail(
          `${label} did not answer within ${this.#options.timeoutMs} ms. The server is checked, and restarted if it does not answer, on the next call.`,
          error,
        );
      }
      if (session.closed) {
        throw this.#fail(
          `MCP server "${this.name}" stopped during tool "${mcpTool.name}" (${session.ended()}). It is restarted on the next call.`,
          error,
        );
      }
      throw this.#fail(`${label} failed: ${errorMessage(error)}`, error);
    }
    const text = this.#redact(convertResult(result));
    if (result.isError === true) throw new Error(text === '' ? `${label} reported an error without a message.` : text);
    return text;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    if (opening !== undefined) await opening.catch(() => undefined);
    const session = this.#session;
    if (session !== undefined) await this.#drop(session);
  }
}
