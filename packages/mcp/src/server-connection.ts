import { ConfigError, type Tool, type ToolContext } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { compileSchema, ToolRegistry, UNTRUSTED_SCHEMA } from '@bridle/registry';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { convertResult } from './convert-result';
import { openSession, type Session } from './open-session';
import { redact, secretValues } from './redact';
import { isTimeout, isUnknownSession, unreachable } from './session-errors';
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

  /**
   * The live session, restarting a server that died, or that hung, could not be reached or forgot the
   * session, and does not answer a ping (by `deadline`, default `timeoutMs` from now).
   */
  async #ensureSession(deadline = Date.now() + this.#options.timeoutMs): Promise<Session> {
    if (this.#closed) throw new Error(`MCP server "${this.name}" is closed: connect again with connectMcp.`);
    const session = this.#session;
    if (session !== undefined && !session.closed) {
      if (!this.#suspect) return session;
      try {
        // Half the time left: a live server answers a ping at once, and a restart needs the other half.
        await session.client.ping({ timeout: Math.max(1, Math.floor((deadline - Date.now()) / 2)) });
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
      const result = await this.#listTools();
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

  /** `tools/list` on the live session; a session the server no longer knows is replaced once. */
  async #listTools() {
    for (let attempt = 1; ; attempt++) {
      const session = await this.#ensureSession();
      this.#listChanged = false;
      try {
        return await session.client.listTools(undefined, { timeout: this.#options.timeoutMs, cacheMode: 'refresh' });
      } catch (error) {
        if (!isUnknownSession(error, session) || attempt > 1) throw error;
        await this.#drop(session);
      }
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
        // The very check the run's registry makes: a tool that passes here cannot break a run. Its
        // output schema is compiled as the SDK will compile it for each call (see untrustedValidator).
        new ToolRegistry([tool]);
        if (mcpTool.outputSchema !== undefined) compileSchema(mcpTool.outputSchema, { untrusted: true });
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
    const tool: Tool & { [UNTRUSTED_SCHEMA]: true } = {
      name,
      description: this.#redact(description),
      parameters,
      readOnly,
      requiresApproval,
      execute: (args, context) => this.#call(mcpTool, name, args, context),
      // The server wrote this schema: its patterns are evaluated in linear time wherever it is checked.
      [UNTRUSTED_SCHEMA]: true,
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

  /**
   * `promise`, or a rejection naming the server once `deadline` passes or `signal` aborts (the promise
   * goes on unobserved: a reconnect others may wait for).
   */
  async #beforeDeadline<T>(promise: Promise<T>, deadline: number, signal: AbortSignal): Promise<T> {
    promise.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`MCP server "${this.name}" did not answer within ${this.#options.timeoutMs} ms`)),
        Math.max(0, deadline - Date.now()),
      );
      onAbort = () => reject(new Error(`MCP server "${this.name}": the call was cancelled while it reconnected`));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Calls a tool within `timeoutMs` in all (reconnecting included). A session the server no longer knows
   * (HTTP 404 for its `Mcp-Session-Id`: the server restarted) is dropped and the call sent once more on a
   * new session: the server ran nothing. A server that cannot be reached is checked again on the next call.
   */
  async #call(mcpTool: McpTool, name: string, args: unknown, context: ToolContext): Promise<string> {
    const label = `MCP tool "${mcpTool.name}" on server "${this.name}"`;
    const { signal } = context;
    if (signal.aborted) throw new Error(`${label} was cancelled before it started.`);
    const deadline = Date.now() + this.#options.timeoutMs;
    const onprogress = this.#progress(name, context);
    for (let attempt = 1; ; attempt++) {
      let session: Session;
      try {
        session = await this.#beforeDeadline(this.#ensureSession(deadline), deadline, signal);
      } catch (error) {
        throw this.#fail(
          `${errorMessage(error)} (while calling tool "${mcpTool.name}"; it is tried again on the next call)`,
          error,
        );
      }
      let result: Awaited<ReturnType<typeof session.client.callTool>>;
      try {
        result = await session.client.callTool(
          { name: mcpTool.name, arguments: (args ?? {}) as Record<string, unknown> },
          {
            signal,
            timeout: Math.max(1, deadline - Date.now()),
            ...(onprogress === undefined ? {} : { onprogress }),
          },
        );
      } catch (error) {
        if (signal.aborted) throw this.#fail(`${label} was cancelled (the server was told).`, error);
        if (isUnknownSession(error, session)) {
          await this.#drop(session);
          this.#listChanged = true;
          if (attempt === 1) continue;
        }
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
        const away = unreachable(error);
        if (away !== undefined) {
          this.#suspect = true;
          throw this.#fail(
            `MCP server "${this.name}" could not be reached while calling tool "${mcpTool.name}" (${away}). It is tried again on the next call.`,
            error,
          );
        }
        throw this.#fail(`${label} failed: ${errorMessage(error)}`, error);
      }
      const text = this.#redact(convertResult(result));
      if (result.isError === true)
        throw new Error(text === '' ? `${label} reported an error without a message.` : text);
      return text;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening;
    if (opening !== undefined) await opening.catch(() => undefined);
    const session = this.#session;
    if (session !== undefined) await this.#drop(session);
  }
}
