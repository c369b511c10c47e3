import net, { type AddressInfo } from 'node:net';
import { ConfigError } from '@bridle/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpFetchTool, httpFetchTool } from '../src/http-fetch-tool';
import { type LocalServer, respond, startServer, toolContext } from './local-server';

const servers: LocalServer[] = [];
async function serve(...args: Parameters<typeof startServer>): Promise<LocalServer> {
  const server = await startServer(...args);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const privateFetch = (options = {}) => httpFetchTool({ allowPrivateNetworks: true, ...options });
/** A handler that never answers: the request hangs until the client gives up. */
const silent = () => {};

describe('timeouts and cancellation', () => {
  it('times out a server that never answers', async () => {
    const server = await serve(silent);
    await expect(async () =>
      privateFetch({ timeoutMs: 1000 }).execute({ url: `${server.origin}/slow` }, toolContext()),
    ).rejects.toThrow(`http_fetch: timed out after 1000 ms (${server.origin}/slow)`);
    // Never retried. (On a loaded machine a 100 ms budget could end before the request even arrived.)
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('times out a body that stalls after the headers', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });
    await expect(async () =>
      privateFetch({ timeoutMs: 150 }).execute({ url: server.origin }, toolContext()),
    ).rejects.toThrow('http_fetch: timed out after 150 ms');
  });

  it('the deadline covers the whole redirect chain and names the hop', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/') response.writeHead(302, { location: '/hang' }).end();
    });
    await expect(async () =>
      privateFetch({ timeoutMs: 150 }).execute({ url: `${server.origin}/` }, toolContext()),
    ).rejects.toThrow(`http_fetch: timed out after 150 ms (redirect 1 to ${server.origin}/hang)`);
  });

  it('aborts an in-flight request when the context signal aborts', async () => {
    let closed!: Promise<void>;
    const controller = new AbortController();
    const server = await serve((request) => {
      closed = new Promise((resolve) => request.socket.on('close', () => resolve()));
      controller.abort(new Error('run cancelled'));
    });
    await expect(async () =>
      privateFetch().execute({ url: server.origin }, toolContext(controller.signal)),
    ).rejects.toThrow(`http_fetch: aborted (${server.origin}/)`);
    await closed;
  });

  it('does not connect at all when the signal is already aborted', async () => {
    const server = await serve(respond(200, {}, 'never'));
    const controller = new AbortController();
    controller.abort();
    await expect(async () =>
      privateFetch().execute({ url: server.origin }, toolContext(controller.signal)),
    ).rejects.toThrow('http_fetch: aborted');
    expect(server.requests).toEqual([]);
  });
});

describe('network and protocol failures', () => {
  it('reports a refused connection', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    await expect(async () =>
      privateFetch().execute({ url: `http://127.0.0.1:${port}/` }, toolContext()),
    ).rejects.toThrow(`http_fetch: the connection was refused (http://127.0.0.1:${port}/)`);
  });

  it('reports a host name that does not resolve', async () => {
    const tool = createHttpFetchTool(
      {},
      { resolve: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) },
    );
    await expect(async () => tool.execute({ url: 'http://no-such-host.invalid/' }, toolContext())).rejects.toThrow(
      'http_fetch: could not resolve the host name (http://no-such-host.invalid/)',
    );
    const empty = createHttpFetchTool({}, { resolve: async () => [] });
    await expect(async () => empty.execute({ url: 'http://empty.invalid/' }, toolContext())).rejects.toThrow(
      'http_fetch: could not resolve the host name',
    );
  });

  it('reports a body cut short by the server', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      response.write('only a little', () => response.destroy());
    });
    await expect(async () => privateFetch().execute({ url: server.origin }, toolContext())).rejects.toThrow(
      /^http_fetch: (refused: the server closed the connection before the body was complete|the connection was reset)/,
    );
  });

  it('reports a response that is not HTTP', async () => {
    const sockets: net.Socket[] = [];
    const garbage = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {}); // the client resets the connection: expected here
      socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const { port } = garbage.address() as AddressInfo;
    try {
      await expect(async () =>
        privateFetch().execute({ url: `http://127.0.0.1:${port}/` }, toolContext()),
      ).rejects.toThrow(/^http_fetch: the server sent an invalid HTTP response/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it('reports a corrupt compressed body', async () => {
    const server = await serve(respond(200, { 'content-encoding': 'gzip' }, 'definitely not gzip'));
    await expect(async () => privateFetch().execute({ url: server.origin }, toolContext())).rejects.toThrow(
      'http_fetch: the compressed body is corrupt',
    );
  });

  it('treats a hostile content-encoding name as plain bytes', async () => {
    const server = await serve(respond(200, { 'content-encoding': '__proto__', 'content-type': 'text/plain' }, 'raw'));
    expect(await privateFetch().execute({ url: server.origin }, toolContext())).toMatchObject({ body: 'raw' });
  });
});

describe('proxy environment variables are ignored', () => {
  it('connects directly even when HTTP_PROXY points at a proxy', async () => {
    const proxy = await serve(respond(200, {}, 'from the proxy'));
    const target = await serve(respond(200, {}, 'direct'));
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = proxy.origin;
    process.env.http_proxy = proxy.origin;
    try {
      expect(await privateFetch().execute({ url: target.origin }, toolContext())).toMatchObject({ body: 'direct' });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
    expect(proxy.requests).toEqual([]);
  });
});

describe('options are validated at creation', () => {
  it.each([
    [{ maxBytes: 0 }, 'Invalid httpFetchTool option maxBytes: expected an integer from 1 to 1000000000, got number 0.'],
    [
      { maxBytes: 1.5 },
      'Invalid httpFetchTool option maxBytes: expected an integer from 1 to 1000000000, got number 1.5.',
    ],
    [
      { timeoutMs: -1 },
      'Invalid httpFetchTool option timeoutMs: expected an integer from 1 to 2147483647, got number -1.',
    ],
    [
      { timeoutMs: Number.POSITIVE_INFINITY },
      'Invalid httpFetchTool option timeoutMs: expected an integer from 1 to 2147483647, got number Infinity.',
    ],
    [
      { maxRedirects: 21 },
      'Invalid httpFetchTool option maxRedirects: expected an integer from 0 to 20, got number 21.',
    ],
    [{ maxRedirects: '5' }, 'Invalid httpFetchTool option maxRedirects: expected an integer from 0 to 20, got "5".'],
    [{ allowPrivateNetworks: 'yes' }, 'httpFetchTool: allowPrivateNetworks must be a boolean, got "yes"'],
    [
      { allowHosts: [] },
      'httpFetchTool: allowHosts must be a non-empty array of host names, got an array; omit it to allow every public host',
    ],
    [
      { allowHosts: 'example.com' },
      'httpFetchTool: allowHosts must be a non-empty array of host names, got "example.com"',
    ],
    [
      { allowHosts: ['https://example.com'] },
      'httpFetchTool: allowHosts entry "https://example.com" is not a host name; write "example.com" or "*.example.com" (no scheme, port or path)',
    ],
    [{ allowHosts: ['example.com:8080'] }, 'httpFetchTool: allowHosts entry "example.com:8080" is not a host name'],
    [{ allowHosts: ['example.com/path'] }, 'httpFetchTool: allowHosts entry "example.com/path" is not a host name'],
    [{ allowHosts: ['*'] }, 'httpFetchTool: allowHosts entry "*" is not a host name'],
    [{ allowHosts: ['a.*.com'] }, 'httpFetchTool: allowHosts entry "a.*.com" is not a host name'],
    [{ allowHosts: [42] }, 'httpFetchTool: allowHosts entry number 42 is not a host name'],
    [
      { allowPrivate: true },
      'httpFetchTool: unknown option "allowPrivate"; known options: allowHosts, allowPrivateNetworks, maxBytes, timeoutMs, maxRedirects',
    ],
  ])('%j', (options, message) => {
    expect(() => httpFetchTool(options as never)).toThrow(ConfigError);
    expect(() => httpFetchTool(options as never)).toThrow(message);
  });
});
