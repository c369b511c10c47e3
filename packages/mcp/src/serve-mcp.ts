import type { Readable, Writable } from 'node:stream';
import { boundToolResult } from '@bridle/context';
import type { Tool } from '@bridle/protocol';
import { errorMessage, integerOption } from '@bridle/protocol/internal';
import { ToolRegistry } from '@bridle/registry';
import { type CallToolResult, Server } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { BusyError, CallLimiter } from './call-limiter';

/** Options of {@link serveMcp}. */
export interface ServeMcpOptions {
  /** The server name MCP clients see. Default `bridle`. */
  name?: string;
  version?: string;
  /** Told to clients at the handshake (e.g. a skill's instructions). */
  instructions?: string;
  /** Results longer than this are cut (head and tail kept, with a marker), as in Bridle's own loop. Default 100000. */
  maxResultChars?: number;
  /** Bounds each call in milliseconds, its wait for a turn included; the tool's signal aborts then. Default: no bound. */
  timeoutMs?: number;
  /**
   * Most tool calls running at once (read-only ones run concurrently, the others one at a time). Default 8.
   * A workspace search starts a worker thread per call: this bounds the threads and their memory.
   */
  maxConcurrentCalls?: number;
  /**
   * Most calls waiting for their turn. Past it a call is refused at once with an `isError` result that
   * starts with `Busy:`. Default 64.
   */
  maxQueuedCalls?: number;
  /** Default `process.stdin` / `process.stdout`. */
  stdin?: Readable;
  stdout?: Writable;
  /** Transport-level errors (a bad line from the client). Default: ignored. Never receives tool errors. */
  onError?: (error: Error) => void;
}

/** A running MCP server. */
export interface McpServeHandle {
  /** Resolves when the client disconnects (its end of stdin closed) or {@link close} was called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Same default as the loop's `context.maxToolResultChars`. */
const DEFAULT_MAX_RESULT_CHARS = 100_000;
const DEFAULT_MAX_CONCURRENT_CALLS = 8;
const DEFAULT_MAX_QUEUED_CALLS = 64;
let connections = 0;

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function resultText(value: unknown, name: string): { text: string; isError: boolean } {
  if (typeof value === 'string') return { text: value, isError: false };
  try {
    return { text: JSON.stringify(value) ?? 'null', isError: false };
  } catch (error) {
    return {
      text: `Tool ${name} returned a result that cannot be converted to JSON: ${errorMessage(error)}`,
      isError: true,
    };
  }
}

/**
 * Serves Bridle tools to any MCP client over stdio (both the 2026-07-28 and the 2025 protocol). Each
 * tool is listed with its JSON Schema and annotations (`readOnlyHint`, `destructiveHint`,
 * `idempotentHint`); arguments are validated by the same registry as in Bridle's own loop before
 * `execute` runs, so a tool's jail and limits hold exactly as there. Refusals (invalid arguments, an
 * unknown tool, a tool that throws, a server too busy to queue the call) are `isError` results with the
 * loop's wording. At most `maxConcurrentCalls` calls run at once, tools that are not read-only one at a
 * time, and `maxQueuedCalls` wait; approval is the MCP client's (its user sees the annotations).
 * Throws `ConfigError` for invalid tools or options.
 */
export function serveMcp(tools: readonly Tool[], options: ServeMcpOptions = {}): McpServeHandle {
  const registry = new ToolRegistry(tools);
  integerOption('maxResultChars', options.maxResultChars, undefined, { min: 1, where: 'serveMcp' });
  integerOption('timeoutMs', options.timeoutMs, undefined, { min: 1, where: 'serveMcp' });
  const limiter = new CallLimiter(
    integerOption('maxConcurrentCalls', options.maxConcurrentCalls, DEFAULT_MAX_CONCURRENT_CALLS, {
      min: 1,
      where: 'serveMcp',
    }),
    integerOption('maxQueuedCalls', options.maxQueuedCalls, DEFAULT_MAX_QUEUED_CALLS, { min: 0, where: 'serveMcp' }),
  );
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const runId = `mcp-${process.pid}-${++connections}`;
  const listed = registry.tools().map((tool) => {
    const readOnly = tool.readOnly === true;
    return {
      name: tool.name,
      description: tool.description,
      inputSchema: registry.definitions().find((definition) => definition.name === tool.name)?.parameters as {
        type: 'object';
      },
      annotations: {
        readOnlyHint: readOnly,
        destructiveHint: !readOnly,
        idempotentHint: readOnly || tool.idempotent === true,
        openWorldHint: false,
      },
    };
  });

  async function call(name: string, args: unknown, signal: AbortSignal, id: string): Promise<CallToolResult> {
    const checked = registry.validate(name, args ?? {});
    if (!checked.ok) {
      const unknown = !registry.has(name);
      return errorResult(
        unknown ? (checked.errors[0] ?? `Unknown tool: ${name}`) : `Invalid arguments: ${checked.errors.join('; ')}`,
      );
    }
    const tool = registry.get(name) as Tool;
    const controller = new AbortController();
    const abort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => controller.abort(new Error(`Timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    const run = async () =>
      tool.execute(checked.value, {
        signal: controller.signal,
        callId: id,
        runId,
        idempotencyKey: `${runId}:${id}`,
      });
    try {
      const value = await limiter.run(run, { exclusive: tool.readOnly !== true, signal: controller.signal });
      const { text, isError } = resultText(value, name);
      const content = boundToolResult(text, maxResultChars);
      return { content: [{ type: 'text', text: content }], isError };
    } catch (error) {
      if (error instanceof BusyError) return errorResult(error.message);
      const message = errorMessage(error);
      return errorResult(
        controller.signal.aborted && timer !== undefined && !signal.aborted
          ? `Timed out after ${options.timeoutMs} ms: ${message}`
          : message,
      );
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    }
  }

  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const transport = new StdioServerTransport(stdin, stdout);
  let closedResolve: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    closedResolve = resolve;
  });
  stdin.once('end', () => closedResolve());
  stdin.once('close', () => closedResolve());
  const handle = serveStdio(
    () => {
      const server = new Server(
        { name: options.name ?? 'bridle', version: options.version ?? '0.1.0' },
        {
          capabilities: { tools: {} },
          ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        },
      );
      server.setRequestHandler('tools/list', () => ({ tools: listed }));
      server.setRequestHandler('tools/call', (request, context) =>
        call(request.params.name, request.params.arguments, context.mcpReq.signal, String(context.mcpReq.id)),
      );
      return server;
    },
    { transport, ...(options.onError === undefined ? {} : { onerror: options.onError }) },
  );
  return {
    closed,
    async close() {
      await handle.close();
      closedResolve();
    },
  };
}
