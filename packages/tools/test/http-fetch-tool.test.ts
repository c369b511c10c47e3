import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetchTool } from '../src/http-fetch-tool';
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

describe('httpFetchTool happy paths (a loopback server, reachable only with allowPrivateNetworks)', () => {
  it('GETs a page and reports status, content type, final URL and body', async () => {
    const server = await serve(respond(200, { 'content-type': 'text/plain; charset=utf-8' }, 'hello, world'));
    const tool = privateFetch();
    const url = `${server.origin}/path?q=1#fragment`;
    expect(await tool.execute({ url }, toolContext())).toEqual({
      url,
      finalUrl: url,
      redirects: 0,
      status: 200,
      statusText: 'OK',
      contentType: 'text/plain; charset=utf-8',
      body: 'hello, world',
      bytes: 12,
      truncated: false,
      binary: false,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/path?q=1' });
    expect(server.requests[0]!.headers['user-agent']).toMatch(/^bridle-http-fetch\//);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(tool).toMatchObject({ name: 'http_fetch', readOnly: true });
  });

  it('HEAD returns the status and headers without a body', async () => {
    const server = await serve(respond(200, { 'content-type': 'text/html' }, '<p>ignored</p>'));
    const result = await privateFetch().execute({ url: `${server.origin}/`, method: 'HEAD' }, toolContext());
    expect(result).toMatchObject({ status: 200, contentType: 'text/html', body: '', bytes: 0, truncated: false });
    expect(server.requests.map((request) => request.method)).toEqual(['HEAD']);
  });

  it('returns error statuses as results, not errors', async () => {
    const server = await serve(respond(404, { 'content-type': 'text/plain' }, 'no such page'));
    expect(await privateFetch().execute({ url: `${server.origin}/missing` }, toolContext())).toMatchObject({
      status: 404,
      statusText: 'Not Found',
      body: 'no such page',
    });
  });

  it('decodes the charset from the content type, defaults to UTF-8 and drops a byte order mark', async () => {
    const latin1 = await serve(
      respond(200, { 'content-type': 'text/plain; charset="ISO-8859-1"' }, Buffer.from([0x63, 0x61, 0x66, 0xe9])),
    );
    const utf8 = await serve(respond(200, { 'content-type': 'text/plain' }, Buffer.from('\uFEFFnaïve ☃', 'utf8')));
    const unknown = await serve(respond(200, { 'content-type': 'text/plain; charset=klingon' }, 'plain'));
    const tool = privateFetch();
    expect((await tool.execute({ url: latin1.origin }, toolContext())).body).toBe('café');
    expect((await tool.execute({ url: utf8.origin }, toolContext())).body).toBe('naïve ☃');
    expect((await tool.execute({ url: unknown.origin }, toolContext())).body).toBe('plain');
  });

  it('undoes gzip content encoding', async () => {
    const server = await serve(
      respond(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync('{"ok":true}')),
    );
    expect(await privateFetch().execute({ url: server.origin }, toolContext())).toMatchObject({
      body: '{"ok":true}',
      bytes: 11,
    });
  });

  it('does not decode binary content types', async () => {
    const server = await serve(respond(200, { 'content-type': 'image/png' }, Buffer.from([0x89, 0x50, 0x4e, 0x47])));
    expect(await privateFetch().execute({ url: server.origin }, toolContext())).toMatchObject({
      binary: true,
      body: '',
      bytes: 4,
      contentType: 'image/png',
    });
  });

  it('follows redirects (relative and absolute, 301/302/303/307/308) and reports the final URL', async () => {
    const server = await serve((request, response, self) => {
      const hops: Record<string, [number, string]> = {
        '/a': [301, '/b'],
        '/b': [302, `${self.origin}/c`],
        '/c': [303, 'd'],
        '/d': [307, '/e?x=1'],
        '/e?x=1': [308, '/final'],
      };
      const hop = hops[request.url ?? ''];
      if (hop) response.writeHead(hop[0], { location: hop[1] }).end();
      else response.writeHead(200, { 'content-type': 'text/plain' }).end(`at ${request.url}`);
    });
    const result = await privateFetch().execute({ url: `${server.origin}/a` }, toolContext());
    expect(result).toMatchObject({ finalUrl: `${server.origin}/final`, redirects: 5, status: 200, body: 'at /final' });
    expect(server.requests.map((request) => request.url)).toEqual(['/a', '/b', '/c', '/d', '/e?x=1', '/final']);
  });

  it('returns a 3xx without Location as the response', async () => {
    const server = await serve(respond(302, { 'content-type': 'text/plain' }, 'nowhere to go'));
    expect(await privateFetch().execute({ url: server.origin }, toolContext())).toMatchObject({
      status: 302,
      body: 'nowhere to go',
    });
  });
});

describe('httpFetchTool byte cap', () => {
  it('stops reading an endless body at maxBytes, reports truncated and closes the connection', async () => {
    let closed!: Promise<void>;
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      closed = new Promise((resolve) => response.on('close', () => resolve()));
      const chunk = 'x'.repeat(16_384);
      const pump = () => {
        while (!response.destroyed && response.write(chunk)) {}
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const result = await privateFetch({ maxBytes: 1_000 }).execute({ url: server.origin }, toolContext());
    expect(result).toMatchObject({ bytes: 1_000, truncated: true, body: 'x'.repeat(1_000) });
    await closed;
  });

  it('a body of exactly maxBytes is not truncated; one byte more is', async () => {
    const exact = await serve(respond(200, { 'content-type': 'text/plain' }, 'abcde'));
    const over = await serve(respond(200, { 'content-type': 'text/plain' }, 'abcdef'));
    const tool = privateFetch({ maxBytes: 5 });
    expect(await tool.execute({ url: exact.origin }, toolContext())).toMatchObject({ body: 'abcde', truncated: false });
    expect(await tool.execute({ url: over.origin }, toolContext())).toMatchObject({ body: 'abcde', truncated: true });
  });

  it('drops a character cut in half by the cap instead of showing a replacement character', async () => {
    const server = await serve(respond(200, { 'content-type': 'text/plain; charset=utf-8' }, 'aé€'));
    expect(await privateFetch({ maxBytes: 4 }).execute({ url: server.origin }, toolContext())).toMatchObject({
      body: 'aé',
      bytes: 4,
      truncated: true,
    });
  });

  it('caps the decompressed size of a gzip bomb', async () => {
    const bomb = gzipSync(Buffer.alloc(20_000_000));
    const server = await serve(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, bomb));
    const result = await privateFetch({ maxBytes: 2_048 }).execute({ url: server.origin }, toolContext());
    expect(result).toMatchObject({ bytes: 2_048, truncated: true });
    expect(bomb.length).toBeLessThan(100_000);
  });
});
