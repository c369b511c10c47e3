import { PassThrough } from 'node:stream';
import type { Tool } from '@bridle/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { serveMcp } from '../src/index';

/** The v1 SDK client over two in-process streams: what a stdio client does, without a process. */
class StreamTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  constructor(
    readonly toServer: PassThrough,
    readonly fromServer: PassThrough,
  ) {}
  async start() {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
  }
  async send(message: JSONRPCMessage) {
    this.toServer.write(serializeMessage(message));
  }
  async close() {
    this.toServer.end();
    this.onclose?.();
  }
}

/** Tools that hold their call until `open()`, counting how many run at once. */
function heldTools() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const counts = { running: 0, most: 0, writing: 0, mostWriting: 0, started: 0 };
  const hold = (write: boolean): Tool => ({
    name: write ? 'hold_write' : 'hold',
    description: 'Holds until released',
    parameters: { type: 'object' },
    readOnly: !write,
    async execute() {
      counts.started++;
      counts.running++;
      counts.most = Math.max(counts.most, counts.running);
      if (write) counts.mostWriting = Math.max(counts.mostWriting, ++counts.writing);
      await gate;
      counts.running--;
      if (write) counts.writing--;
      return 'released';
    },
  });
  return { tools: [hold(false), hold(true)], counts, open: () => release() };
}

async function connected(tools: Tool[], options: Parameters<typeof serveMcp>[1]) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const handle = serveMcp(tools, { ...options, stdin: toServer, stdout: fromServer });
  const client = new Client({ name: 'many-calls', version: '1.0.0' });
  await client.connect(new StreamTransport(toServer, fromServer));
  return { client, handle };
}

const textOf = (result: object) => (result as { content: { text: string }[] }).content[0]?.text;

describe('serveMcp bounds the calls in flight', () => {
  it('200 concurrent read-only calls: 8 run, 64 wait, the rest are refused at once with a clear error', async () => {
    const { tools, counts, open } = heldTools();
    const { client, handle } = await connected(tools, {});
    const refusals: string[] = [];
    const calls = Array.from({ length: 200 }, () =>
      client.callTool({ name: 'hold', arguments: {} }, undefined, { timeout: 60_000 }).then((result) => {
        if (result.isError === true) refusals.push(textOf(result) as string);
        return result;
      }),
    );
    // The refusals come back while the 72 admitted calls are still held.
    while (refusals.length < 128) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(counts.started).toBe(8);
    open();
    const results = await Promise.all(calls);
    expect(results.filter((result) => result.isError !== true).map(textOf)).toEqual(Array(72).fill('released'));
    expect(refusals).toEqual(
      Array(128).fill(
        'Busy: 8 calls are running and 64 waiting, the most this server takes (at most 8 at once, tools that are not read-only one at a time, 64 waiting). Try again when a call has finished.',
      ),
    );
    expect(counts.most).toBe(8);
    await client.close();
    await handle.close();
  });

  it('limits are options; tools that are not read-only still run one at a time', async () => {
    const { tools, counts, open } = heldTools();
    const { client, handle } = await connected(tools, { maxConcurrentCalls: 3, maxQueuedCalls: 0 });
    const calls = [
      client.callTool({ name: 'hold_write', arguments: {} }),
      client.callTool({ name: 'hold_write', arguments: {} }),
      client.callTool({ name: 'hold', arguments: {} }),
      client.callTool({ name: 'hold', arguments: {} }),
      client.callTool({ name: 'hold', arguments: {} }),
    ];
    const results: { isError?: unknown }[] = [];
    for (const [index, call] of calls.entries()) {
      if (index !== 0 && index !== 2 && index !== 3) results[index] = (await call) as { isError?: unknown };
    }
    // The second write waits for the first, and no queue is allowed: refused; so is the third read.
    expect([results[1]?.isError, results[4]?.isError]).toEqual([true, true]);
    expect(textOf(results[1] as object)).toBe(
      'Busy: 1 call is running and 0 waiting, the most this server takes (at most 3 at once, tools that are not read-only one at a time, 0 waiting). Try again when a call has finished.',
    );
    expect(textOf(results[4] as object)).toBe(
      'Busy: 3 calls are running and 0 waiting, the most this server takes (at most 3 at once, tools that are not read-only one at a time, 0 waiting). Try again when a call has finished.',
    );
    open();
    expect((await Promise.all([calls[0], calls[2], calls[3]])).map((result) => textOf(result as object))).toEqual([
      'released',
      'released',
      'released',
    ]);
    expect([counts.most, counts.mostWriting]).toEqual([3, 1]);
    await client.close();
    await handle.close();
  });

  it('bad limits are ConfigErrors', () => {
    expect(() => serveMcp([], { maxConcurrentCalls: 0 })).toThrow(
      'Invalid serveMcp option maxConcurrentCalls: expected an integer >= 1',
    );
    expect(() => serveMcp([], { maxQueuedCalls: -1 })).toThrow(
      'Invalid serveMcp option maxQueuedCalls: expected an integer >= 0',
    );
  });
});
