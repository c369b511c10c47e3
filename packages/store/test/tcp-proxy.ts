import net from 'node:net';

/** A TCP proxy to `target` that a test can cut (every connection dropped, port closed) and restore. */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Calls `onMessage` with the type of each Postgres protocol message a client sends (after its startup
 * message): `'Q'` (a simple query) and `'S'` (the Sync ending an extended query) each end one round trip.
 */
function postgresMessages(onMessage: (type: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        if (pending.length < 4) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        pending = pending.subarray(length);
        started = true;
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      onMessage(String.fromCharCode(pending[0] as number));
      pending = pending.subarray(1 + length);
    }
  };
}

/**
 * Starts a proxy on a free port of 127.0.0.1 forwarding to `target`; `onPostgresMessage` hears the type of
 * each Postgres message clients send.
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  onPostgresMessage?: (type: string) => void,
): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    sockets.add(client).add(upstream);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    if (onPostgresMessage !== undefined) client.on('data', postgresMessages(onPostgresMessage));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    restore: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: stop,
  };
}
