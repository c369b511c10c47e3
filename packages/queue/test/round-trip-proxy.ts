import net from 'node:net';

/** A TCP proxy that counts round trips: requests a client sends after the reply to its previous ones. */
export interface RoundTripProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  url: string;
  /** Round trips so far, over every connection. */
  readonly roundTrips: number;
  close(): Promise<void>;
}

/**
 * Starts a proxy to the Redis of `target` (a redis:// URL). A client's bytes that arrive while it has no
 * reply pending on that connection (the first ones, or the first after a reply came back) open a round
 * trip; pipelined commands sent together are one.
 */
export async function startRoundTripProxy(target: string): Promise<RoundTripProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let roundTrips = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: hostname, port: Number(port || 6379) });
    sockets.add(client).add(upstream);
    let waiting = false;
    client.on('data', (chunk) => {
      if (!waiting) roundTrips++;
      waiting = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      waiting = false;
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    get roundTrips() {
      return roundTrips;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
