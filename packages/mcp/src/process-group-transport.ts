import { type ChildProcess, spawn } from 'node:child_process';
import {
  deserializeMessage,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { forgetGroup, killGroup, killGroupOnExit } from './owner-exit';

/** How a stdio server is started. */
export interface ProcessGroupTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Largest single line (message) read from stdout, in bytes. */
  maxMessageBytes: number;
  /** A line on stdout that is not JSON (the server wrote a log line to the wrong stream). */
  onGarbage(line: string): void;
}

const STDERR_TAIL_BYTES = 2048;
const STDERR_HEAD_CHARS = 4096;
const TERM_GRACE_MS = 1500;
/** How long stdout may stay open after the server exited (something it started holds it). */
const EXIT_DRAIN_MS = 2000;

/**
 * MCP over a child's stdin/stdout, the child started in its own process group (`detached`), so that
 * `close()` ends the server and everything it started (SIGTERM to the group, SIGKILL after a grace
 * period), and the owner's exit kills the group too. Lines that are not JSON are reported and
 * skipped; a line longer than `maxMessageBytes` is an error that ends the connection.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: ProcessGroupTransportOptions;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #chunks: Buffer[] = [];
  #pending = 0;
  #stderr = '';
  #stderrHead = '';
  #exit: string | undefined;
  #closing = false;
  #queue: JSONRPCMessage[] = [];
  #notified = false;
  #flushing = false;
  #finished = false;

  constructor(options: ProcessGroupTransportOptions) {
    this.#options = options;
  }

  /** The process group id (the child's pid) once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * The child's stderr stream (piped; Bridle keeps only its tail). Its presence, with `pid`, is how the
   * MCP SDK recognises a stdio transport: a 2026 version probe that times out then falls back to the
   * 2025 handshake instead of failing.
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.#child?.stderr ?? null;
  }

  /** `exited with code 1`, `was killed by SIGKILL`, or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.#exit;
  }

  /** The last bytes the server wrote to stderr (for error messages; redact before showing). */
  get stderrTail(): string {
    return this.#stderr.trim();
  }

  /** The first bytes the server wrote to stderr (why it died starting; redact before showing). */
  get stderrHead(): string {
    return this.#stderrHead.trim();
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error('ProcessGroupTransport already started');
    const { command, args, env, cwd } = this.#options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { env, cwd, detached: true, shell: false, stdio: ['pipe', 'pipe', 'pipe'] });
      this.#child = child;
      this.#exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', (error) => {
        this.#exit ??= `could not be started (${(error as NodeJS.ErrnoException).code ?? error.message})`;
        reject(error);
        this.onerror?.(error);
        this.#finish();
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) killGroupOnExit(child.pid);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.#exit = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
        // The leader is gone; whatever it started may not be (and may hold stdout open).
        if (child.pid !== undefined) {
          killGroup(child.pid, 'SIGKILL');
          forgetGroup(child.pid);
        }
        setTimeout(() => this.#finish(), EXIT_DRAIN_MS).unref();
      });
      // After the exit, once stdout is read to its end: the last answers still count.
      child.once('close', () => this.#finish());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.on('error', () => undefined);
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        if (this.#stderrHead.length < STDERR_HEAD_CHARS) {
          this.#stderrHead = (this.#stderrHead + text).slice(0, STDERR_HEAD_CHARS);
        }
        this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      this.#chunks.push(chunk.subarray(start, index));
      const line = Buffer.concat(this.#chunks).toString('utf8').replace(/\r$/, '');
      this.#chunks = [];
      this.#pending = 0;
      start = index + 1;
      this.#line(line);
      if (this.#closing) return;
    }
    if (start < chunk.length) {
      this.#pending += chunk.length - start;
      this.#chunks.push(chunk.subarray(start));
      if (this.#pending > this.#options.maxMessageBytes) {
        this.#chunks = [];
        this.#pending = 0;
        this.onerror?.(new Error(`sent a message larger than ${this.#options.maxMessageBytes} bytes`));
        void this.close();
      }
    }
  }

  #line(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      if (error instanceof SyntaxError) this.#options.onGarbage(line);
      else this.onerror?.(new Error(`sent a line that is not a JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.#deliver(message);
  }

  /**
   * The SDK dispatches a notification one microtask later but a response at once, and forgets a call's
   * progress handler with its response: a progress notification read in the same chunk as the response
   * would find no handler. A response that follows a notification is therefore held until the next
   * macrotask, and so is everything after it, in order.
   */
  #deliver(message: JSONRPCMessage): void {
    const isResponse = 'id' in message && !('method' in message);
    if (this.#queue.length > 0 || (isResponse && this.#notified)) {
      this.#queue.push(message);
      this.#scheduleFlush();
      return;
    }
    if (!('id' in message)) this.#markNotified();
    this.onmessage?.(message);
  }

  #markNotified(): void {
    if (this.#notified) return;
    this.#notified = true;
    setImmediate(() => {
      this.#notified = false;
    });
  }

  #scheduleFlush(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      while (this.#queue.length > 0) {
        const next = this.#queue[0] as JSONRPCMessage;
        if ('id' in next && !('method' in next) && this.#notified) {
          this.#scheduleFlush();
          return;
        }
        this.#queue.shift();
        if (!('id' in next)) this.#markNotified();
        this.onmessage?.(next);
      }
    });
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    for (const message of this.#queue.splice(0)) this.onmessage?.(message);
    const onclose = this.onclose;
    this.onclose = undefined;
    onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed || this.#exit !== undefined) {
      throw new Error('the server process is not running');
    }
    const json = serializeMessage(message);
    if (!stdin.write(json)) await new Promise<void>((resolve) => stdin.once('drain', resolve));
  }

  /** Ends the whole process group: stdin closed and SIGTERM, SIGKILL after a grace period. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#closing) return;
    this.#closing = true;
    const pid = child.pid;
    if (this.#exit === undefined && pid !== undefined) {
      child.stdin?.end();
      killGroup(pid, 'SIGTERM');
      const graceful = await Promise.race([
        this.#exited?.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), TERM_GRACE_MS).unref()),
      ]);
      if (!graceful) killGroup(pid, 'SIGKILL');
      await this.#exited;
    }
    if (pid !== undefined) {
      killGroup(pid, 'SIGKILL');
      forgetGroup(pid);
    }
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    this.#finish();
  }
}
