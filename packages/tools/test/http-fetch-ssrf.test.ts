import { afterEach, describe, expect, it } from 'vitest';
import { checkAddress } from '../src/check-address';
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

const ok = respond(200, { 'content-type': 'text/plain' }, 'secret');
const PUBLIC_ONLY = 'only public internet addresses may be fetched';

describe('the SSRF guard refuses a real loopback server by default', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.1', '127.0.0.1 is a loopback address'],
    ['2130706433', '127.0.0.1 is a loopback address'],
    ['0x7f000001', '127.0.0.1 is a loopback address'],
    ['0177.0.0.1', '127.0.0.1 is a loopback address'],
    ['0x7f.1', '127.0.0.1 is a loopback address'],
    ['127.0.0.1.', '127.0.0.1 is a loopback address'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1 is an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified (0.0.0.0/8) address'],
    ['0', '0.0.0.0 is an unspecified (0.0.0.0/8) address'],
    ['[::1]', '::1 is a loopback address'],
    ['[0:0:0:0:0:0:0:1]', '::1 is a loopback address'],
    ['[::]', ':: is the unspecified address (::)'],
    ['[::127.0.0.1]', '::7f00:1 is an IPv4-compatible address embedding 127.0.0.1, a loopback address'],
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1 is a NAT64 address embedding 127.0.0.1, a loopback address'],
    ['[fe80::1]', 'fe80::1 is a link-local address'],
    ['[fd00:ec2::254]', 'fd00:ec2::254 is a cloud metadata address'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254 is a cloud metadata address'],
    ['10.0.0.1', '10.0.0.1 is a private network address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT (100.64.0.0/10) address'],
  ])('http://%s:<port>/ is refused before connecting', async (host, reason) => {
    const server = await serve(ok);
    const url = `http://${host}:${server.port}/`;
    await expect(async () => httpFetchTool().execute({ url }, toolContext())).rejects.toThrow(
      `http_fetch: refused: ${reason}; ${PUBLIC_ONLY} (${new URL(url).href})`,
    );
    expect(server.requests).toEqual([]);
  });

  it('the same spellings reach the server when allowPrivateNetworks is set (so the refusals above are real)', async () => {
    const server = await serve(ok);
    const tool = httpFetchTool({ allowPrivateNetworks: true });
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '127.0.0.1.', '[::ffff:127.0.0.1]']) {
      expect(await tool.execute({ url: `http://${host}:${server.port}/` }, toolContext())).toMatchObject({
        body: 'secret',
      });
    }
    expect(server.requests).toHaveLength(5);
  });

  it('checks the resolved address, not the host name: localhost in any case is refused', async () => {
    const server = await serve(ok);
    for (const host of ['localhost', 'LocalHost']) {
      await expect(async () =>
        httpFetchTool().execute({ url: `http://${host}:${server.port}/` }, toolContext()),
      ).rejects.toThrow(
        /^http_fetch: refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; only public/,
      );
    }
    expect(server.requests).toEqual([]);
    expect(
      await httpFetchTool({ allowPrivateNetworks: true }).execute(
        { url: `http://localhost:${server.port}/` },
        toolContext(),
      ),
    ).toMatchObject({ body: 'secret' });
  });

  it('refuses a host whose DNS answer holds any blocked address, even next to a public one', async () => {
    const server = await serve(ok);
    const resolved: string[] = [];
    const tool = createHttpFetchTool(
      {},
      {
        resolve: async (hostname) => {
          resolved.push(hostname);
          return [
            { address: '93.184.216.34', family: 4 },
            { address: '127.0.0.1', family: 4 },
          ];
        },
      },
    );
    await expect(async () =>
      tool.execute({ url: `http://public.test:${server.port}/` }, toolContext()),
    ).rejects.toThrow(
      `http_fetch: refused: public.test resolves to 127.0.0.1, a loopback address; ${PUBLIC_ONLY} (http://public.test:${server.port}/)`,
    );
    expect(resolved).toEqual(['public.test']);
    expect(server.requests).toEqual([]);
  });

  it('refuses a host that resolves to the cloud metadata address, even with allowPrivateNetworks', async () => {
    const tool = createHttpFetchTool(
      { allowPrivateNetworks: true },
      { resolve: async () => [{ address: '169.254.169.254', family: 4 }] },
    );
    await expect(async () => tool.execute({ url: 'http://metadata.google.internal/' }, toolContext())).rejects.toThrow(
      'http_fetch: refused: metadata.google.internal resolves to 169.254.169.254, a cloud metadata address',
    );
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: 'http://[fd00:ec2::254]/latest/' }, toolContext()),
    ).rejects.toThrow('http_fetch: refused: fd00:ec2::254 is a cloud metadata address');
  });

  it.each([
    ['168.63.129.16', '168.63.129.16 is a cloud metadata address'],
    ['169.254.0.23', '169.254.0.23 is a cloud metadata address'],
    ['[fd00:ec2::23]', 'fd00:ec2::23 is a cloud metadata address'],
    ['[fd20:ce::254]', 'fd20:ce::254 is a cloud metadata address'],
  ])('refuses the metadata address %s by URL, even with allowPrivateNetworks', async (host, reason) => {
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: `http://${host}/metadata` }, toolContext()),
    ).rejects.toThrow(`http_fetch: refused: ${reason}`);
  });

  it('re-checks the socket it really connected to (defense in depth behind the lookup)', async () => {
    const server = await serve(ok);
    const seen: string[] = [];
    // The lookup's check passes once; the socket's peer check must catch the same address.
    const tool = createHttpFetchTool(
      {},
      {
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        checkAddress: (address) => {
          seen.push(address);
          return seen.length === 1 ? { allowed: true, address } : checkAddress(address);
        },
      },
    );
    await expect(async () =>
      tool.execute({ url: `http://rebind.test:${server.port}/` }, toolContext()),
    ).rejects.toThrow(`http_fetch: refused: connected to 127.0.0.1, a loopback address; ${PUBLIC_ONLY}`);
    expect(seen).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(server.requests).toEqual([]);
  });
});

describe('every redirect hop is re-checked', () => {
  it('refuses a redirect from an allowed server to a blocked one; the blocked one is never contacted', async () => {
    // Both are live loopback servers; the policy allows 127.0.0.1 only, so hop 1 passes and hop 2 must not.
    const inner = await serve(ok, '127.0.0.2');
    const outer = await serve(respond(302, { location: `${inner.origin}/admin` }));
    const onlyFirst = (address: string) =>
      address === '127.0.0.1' ? ({ allowed: true, address } as const) : checkAddress(address);
    await expect(async () =>
      createHttpFetchTool({}, { checkAddress: onlyFirst }).execute({ url: `${outer.origin}/start` }, toolContext()),
    ).rejects.toThrow(
      `http_fetch: refused: 127.0.0.2 is a loopback address; ${PUBLIC_ONLY} (redirect 1 to ${inner.origin}/admin)`,
    );
    expect(outer.requests).toHaveLength(1);
    expect(inner.requests).toEqual([]);
    // Control: when the policy allows both, the same chain reaches the inner server.
    const both = (address: string) => ({ allowed: true, address }) as const;
    expect(
      await createHttpFetchTool({}, { checkAddress: both }).execute({ url: `${outer.origin}/start` }, toolContext()),
    ).toMatchObject({ body: 'secret', redirects: 1 });
    expect(inner.requests).toHaveLength(1);
  });

  it('refuses a redirect to a host name that resolves to a blocked address', async () => {
    const inner = await serve(ok, '127.0.0.2');
    const outer = await serve(respond(301, { location: `http://intranet.test:${inner.port}/` }));
    const addresses: Record<string, string> = { 'outer.test': '127.0.0.1', 'intranet.test': '127.0.0.2' };
    const tool = createHttpFetchTool(
      {},
      {
        resolve: async (hostname) => [{ address: addresses[hostname]!, family: 4 }],
        checkAddress: (address) => (address === '127.0.0.1' ? { allowed: true, address } : checkAddress(address)),
      },
    );
    await expect(async () => tool.execute({ url: `http://outer.test:${outer.port}/` }, toolContext())).rejects.toThrow(
      `http_fetch: refused: intranet.test resolves to 127.0.0.2, a loopback address; ${PUBLIC_ONLY} (redirect 1 to http://intranet.test:${inner.port}/)`,
    );
    expect(outer.requests).toHaveLength(1);
    expect(inner.requests).toEqual([]);
  });

  it('refuses a redirect to the cloud metadata address with allowPrivateNetworks on', async () => {
    const server = await serve(respond(302, { location: 'http://169.254.169.254/latest/meta-data/' }));
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: server.origin }, toolContext()),
    ).rejects.toThrow(
      `http_fetch: refused: 169.254.169.254 is a cloud metadata address; ${PUBLIC_ONLY} (redirect 1 to http://169.254.169.254/latest/meta-data/)`,
    );
  });

  it.each([
    ['file:///etc/passwd', 'file:'],
    ['ftp://127.0.0.1/', 'ftp:'],
    ['data:text/plain,hi', 'data:'],
    ['javascript:alert(1)', 'javascript:'],
    ['gopher://127.0.0.1:6379/_FLUSHALL', 'gopher:'],
  ])('refuses a redirect to %s', async (location, scheme) => {
    const server = await serve(respond(302, { location }));
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: server.origin }, toolContext()),
    ).rejects.toThrow(`http_fetch: refused: only http and https URLs may be fetched, not ${scheme} (redirect 1 to`);
  });

  it('refuses a redirect to a URL with credentials', async () => {
    const server = await serve((_request, response, self) =>
      response.writeHead(302, { location: `http://admin:hunter2@127.0.0.1:${self.port}/` }).end(),
    );
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: server.origin }, toolContext()),
    ).rejects.toThrow('http_fetch: refused: URLs with credentials (user:password@host) are refused (redirect 1 to');
    expect(server.requests).toHaveLength(1);
  });

  it('stops after maxRedirects (default 5) and names the next location', async () => {
    const server = await serve((request, response) => {
      const step = Number(request.url?.slice(1)) || 0;
      response.writeHead(302, { location: `/${step + 1}` }).end();
    });
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true }).execute({ url: `${server.origin}/0` }, toolContext()),
    ).rejects.toThrow(
      `http_fetch: refused: too many redirects (more than 5); the next one was to /6 (redirect 5 to ${server.origin}/5)`,
    );
    expect(server.requests).toHaveLength(6);
    await expect(async () =>
      httpFetchTool({ allowPrivateNetworks: true, maxRedirects: 0 }).execute(
        { url: `${server.origin}/0` },
        toolContext(),
      ),
    ).rejects.toThrow('http_fetch: refused: too many redirects (more than 0); the next one was to /1');
  });
});

describe('allowHosts', () => {
  const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];

  it('allows listed hosts and wildcard subdomains; refuses others before resolving them', async () => {
    const server = await serve(ok);
    const resolved: string[] = [];
    const tool = createHttpFetchTool(
      { allowHosts: ['docs.test', '*.api.test'], allowPrivateNetworks: true },
      {
        resolve: async (hostname) => {
          resolved.push(hostname);
          return toLoopback();
        },
      },
    );
    for (const host of ['docs.test', 'DOCS.test.', 'v1.api.test', 'a.b.api.test']) {
      expect(await tool.execute({ url: `http://${host}:${server.port}/` }, toolContext())).toMatchObject({
        body: 'secret',
      });
    }
    for (const host of ['api.test', 'evil.test', 'docs.test.evil.test', 'xapi.test', '127.0.0.1']) {
      await expect(async () => tool.execute({ url: `http://${host}:${server.port}/` }, toolContext())).rejects.toThrow(
        `http_fetch: refused: host ${host} is not in the allow-list (docs.test, *.api.test)`,
      );
    }
    expect(resolved).toEqual(['docs.test', 'docs.test.', 'v1.api.test', 'a.b.api.test']);
  });

  it('applies the allow-list to every redirect hop', async () => {
    const server = await serve((request, response, self) => {
      if (request.headers.host?.startsWith('docs.test'))
        response.writeHead(302, { location: `http://other.test:${self.port}/` }).end();
      else response.writeHead(200).end('secret');
    });
    const tool = createHttpFetchTool(
      { allowHosts: ['docs.test'], allowPrivateNetworks: true },
      { resolve: toLoopback },
    );
    await expect(async () => tool.execute({ url: `http://docs.test:${server.port}/` }, toolContext())).rejects.toThrow(
      `http_fetch: refused: host other.test is not in the allow-list (docs.test) (redirect 1 to http://other.test:${server.port}/)`,
    );
    expect(server.requests).toHaveLength(1);
  });
});

describe('refused URLs in the arguments', () => {
  it.each([
    ['file:///etc/passwd', 'file:'],
    ['ftp://example.com/file', 'ftp:'],
    ['data:text/plain,hello', 'data:'],
    ['javascript:alert(1)', 'javascript:'],
    ['ws://example.com/socket', 'ws:'],
    ['gopher://example.com/', 'gopher:'],
  ])('%s', async (url, scheme) => {
    await expect(async () => httpFetchTool().execute({ url }, toolContext())).rejects.toThrow(
      `http_fetch: refused: only http and https URLs may be fetched, not ${scheme}`,
    );
  });

  it('refuses credentials, relative URLs, bad methods, long URLs and unknown arguments', async () => {
    const tool = httpFetchTool({ allowPrivateNetworks: true });
    await expect(async () => tool.execute({ url: 'http://user:pw@127.0.0.1/' }, toolContext())).rejects.toThrow(
      'http_fetch: refused: URLs with credentials (user:password@host) are refused (http://user:pw@127.0.0.1/)',
    );
    await expect(async () => tool.execute({ url: 'http://user@127.0.0.1/' }, toolContext())).rejects.toThrow(
      'URLs with credentials',
    );
    await expect(async () => tool.execute({ url: '/etc/passwd' }, toolContext())).rejects.toThrow(
      'http_fetch: "/etc/passwd" is not a valid absolute URL; write it like https://example.com/page',
    );
    await expect(async () =>
      tool.execute({ url: 'http://example.com/', method: 'POST' as 'GET' }, toolContext()),
    ).rejects.toThrow('http_fetch: method "POST" is not allowed; use "GET" or "HEAD"');
    await expect(async () =>
      tool.execute({ url: `http://example.com/${'a'.repeat(9_000)}` }, toolContext()),
    ).rejects.toThrow('http_fetch: the URL is too long (9019 characters, at most 8192)');
    await expect(async () =>
      tool.execute({ url: 'http://example.com/', headers: {} } as never, toolContext()),
    ).rejects.toThrow('http_fetch: unknown argument "headers"; allowed: url, method');
  });
});
