import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkAddress } from '../src/check-address';
import { createHttpFetchTool, httpFetchTool } from '../src/http-fetch-tool';
import { toolContext } from './local-server';

const fixtures = new URL('./fixtures/', import.meta.url);
let server: https.Server;
let origin: string;
let handshakes: number;
let requests: number;

beforeEach(async () => {
  handshakes = 0;
  requests = 0;
  server = https.createServer(
    {
      key: readFileSync(new URL('self-signed.key', fixtures)),
      cert: readFileSync(new URL('self-signed.crt', fixtures)),
    },
    (_request, response) => {
      requests += 1;
      response.end('secret over tls');
    },
  );
  server.on('secureConnection', () => {
    handshakes += 1;
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('https', () => {
  it('refuses a loopback https server before any handshake', async () => {
    await expect(async () => httpFetchTool().execute({ url: `${origin}/` }, toolContext())).rejects.toThrow(
      `http_fetch: refused: 127.0.0.1 is a loopback address; only public internet addresses may be fetched (${origin}/)`,
    );
    expect(handshakes).toBe(0);
  });

  it('verifies certificates: a self-signed one fails with a TLS error and no request is sent', async () => {
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: `${origin}/` }, toolContext()),
    ).rejects.toThrow(/^http_fetch: TLS failed: self[- ]signed certificate/);
    expect(requests).toBe(0);
  });

  it('re-checks the peer of a TLS socket on connect, before the handshake starts', async () => {
    let calls = 0;
    const tool = createHttpFetchTool(
      {},
      {
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        checkAddress: (address) => (++calls === 1 ? { allowed: true, address } : checkAddress(address)),
      },
    );
    const port = (server.address() as AddressInfo).port;
    await expect(async () => tool.execute({ url: `https://secure.test:${port}/` }, toolContext())).rejects.toThrow(
      'http_fetch: refused: connected to 127.0.0.1, a loopback address; only public internet addresses may be fetched',
    );
    expect(handshakes).toBe(0);
    expect(requests).toBe(0);
  });
});
