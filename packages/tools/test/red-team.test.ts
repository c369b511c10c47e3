// Red-team suite: the model is prompt-injected and every argument is hostile (issue 4, SPEC "Tools").
import { createServer as createTcpServer, type Server } from 'node:net';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { calculatorTool } from '../src/calculator-tool';
import { checkAddress } from '../src/check-address';
import { evaluateExpression } from '../src/evaluate-expression';
import { createHttpFetchTool, httpFetchTool } from '../src/http-fetch-tool';
import { type LocalServer, respond, startServer, toolContext } from './local-server';

const servers: LocalServer[] = [];
const rawServers: Server[] = [];
async function serve(...args: Parameters<typeof startServer>): Promise<LocalServer> {
  const server = await startServer(...args);
  servers.push(server);
  return server;
}
/** A TCP server on 127.0.0.1 that answers every connection with `onConnection`. */
async function serveRaw(onConnection: (socket: import('node:net').Socket) => void): Promise<number> {
  const server = createTcpServer(onConnection);
  rawServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const server of rawServers.splice(0)) server.close();
});

function calculate(expression: string): number {
  return evaluateExpression(expression);
}
function calculationError(expression: string): Error {
  try {
    calculate(expression);
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to be refused`);
}

describe('calculator under attack', () => {
  it.each([
    [`${'('.repeat(400)}1${')'.repeat(400)}`, /nested too deeply \(more than 64 levels\)/],
    [`${'-'.repeat(999)}1`, /nested too deeply/],
    [`${'2^'.repeat(499)}2`, /nested too deeply/],
    [`${'sqrt('.repeat(100)}4${')'.repeat(100)}`, /nested too deeply/],
  ])('deep nesting is refused before the stack is at risk (%#)', (expression, message) => {
    expect(calculationError(expression).message).toMatch(message);
  });

  it.each([
    ['10^309', /^Overflow: 10 \^ 309 is too large/],
    ['9^9^9', /^Overflow: 9 \^ 387420489 is too large/],
    ['2^1024', /^Overflow/],
    ['exp(710)', /^Overflow: exp\(710\) is too large/],
    ['1e308 * 10', /^Overflow/],
    ['1e309', /^Number 1e309 is too large at position 1/],
    ['9'.repeat(400), /^Number 9{400} is too large/],
    ['(-8)^(1/3)', /is not a real number/],
  ])('%s is reported, never Infinity or NaN', (expression, message) => {
    expect(calculationError(expression).message).toMatch(message);
  });

  it('-0 comes back as 0, and underflow as 0', () => {
    expect(Object.is(calculate('-0'), 0)).toBe(true);
    expect(Object.is(calculate('-1 * 0'), 0)).toBe(true);
    expect(calculate('2^-1080')).toBe(0);
  });

  it.each(['', '   ', '\n\t'])('empty input %j is refused with a hint', (expression) => {
    expect(calculationError(expression).message).toBe(
      'Expression is empty at position 1: write a calculation like 2 * (3 + 4)',
    );
  });

  it.each([
    ['\u0661 + \u0661', '"\u0661"'],
    ['\uff11 + 1', '"\uff11"'],
    ['2 \u00d7 3', '"\u00d7"'],
    ['6 \u00f7 3', '"\u00f7"'],
    ['4 \u2212 2', '"\u2212"'],
    ['\u00b2', '"\u00b2"'],
  ])('Unicode digits and operators (%s) are refused, not misread', (expression, shown) => {
    expect(calculationError(expression).message).toContain(`Unexpected character ${shown}`);
  });

  it.each([
    'constructor',
    '__proto__',
    'toString',
    'valueOf',
    'hasOwnProperty',
    'constructor(1)',
    'toString()',
    'Infinity',
    'NaN',
  ])('%s is an unknown name, never an object property', (expression) => {
    expect(calculationError(expression).message).toMatch(/^Unknown name "/);
  });

  it('accepts exactly 1,000 characters and refuses 1,001', async () => {
    const exact = `${'1+'.repeat(499)}10`;
    expect(exact).toHaveLength(1000);
    expect(await calculatorTool().execute({ expression: exact }, toolContext())).toEqual({
      expression: exact,
      result: 509,
    });
    expect(calculationError(`${exact}0`).message).toMatch(/too long \(1001 characters, at most 1000\)/);
  });

  it('refuses 101 arguments to min()', () => {
    expect(calculationError(`min(${'1,'.repeat(100)}1)`).message).toMatch(
      /min\(\) takes 1 to 100 argument\(s\), got 101/,
    );
  });
});

const PUBLIC_ONLY = 'only public internet addresses may be fetched';

describe('http_fetch: more spellings of loopback', () => {
  it.each([
    ['017700000001', '127.0.0.1 is a loopback address'],
    ['0x7F.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.000.000.001', '127.0.0.1 is a loopback address'],
    ['%31%32%37.0.0.1', '127.0.0.1 is a loopback address'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1 is an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['[0:0:0:0:0:ffff:127.0.0.1]', '::ffff:7f00:1 is an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
  ])('http://%s:<port>/ is refused and the server never sees a request', async (host, reason) => {
    const server = await serve(respond(200, {}, 'secret'));
    const url = `http://${host}:${server.port}/`;
    await expect(httpFetchTool().execute({ url }, toolContext())).rejects.toThrow(
      `http_fetch: refused: ${reason}; ${PUBLIC_ONLY}`,
    );
    expect(server.requests).toEqual([]);
  });

  it('a real server on [::1] is refused', async () => {
    const server = await serve(respond(200, {}, 'secret'), '::1').catch(() => undefined);
    if (server === undefined) return expect(checkAddress('::1').allowed).toBe(false); // no IPv6 loopback here
    await expect(httpFetchTool().execute({ url: `${server.origin}/` }, toolContext())).rejects.toThrow(
      `refused: ::1 is a loopback address; ${PUBLIC_ONLY}`,
    );
    expect(server.requests).toEqual([]);
  });

  it.each([
    ['127.0.0.1.nip.io', ['127.0.0.1'], '127.0.0.1.nip.io resolves to 127.0.0.1, a loopback address'],
    ['mapped.test', ['::ffff:127.0.0.1'], 'mapped.test resolves to ::ffff:7f00:1, an IPv4-mapped address'],
    ['metadata.test', ['169.254.169.254'], 'metadata.test resolves to 169.254.169.254, a cloud metadata address'],
  ])('a name that resolves to a blocked address (%s) is refused', async (host, addresses, reason) => {
    const server = await serve(respond(200, {}, 'secret'));
    const tool = createHttpFetchTool(
      {},
      { resolve: async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) },
    );
    await expect(tool.execute({ url: `http://${host}:${server.port}/` }, toolContext())).rejects.toThrow(reason);
    expect(server.requests).toEqual([]);
  });
});

describe('http_fetch: DNS rebinding and redirects', () => {
  // In these tests 127.0.0.2 stands for "a public address": the guard allows it and nothing else private.
  const publicStandIn = (address: string) =>
    address === '127.0.0.2' ? { allowed: true as const, address } : checkAddress(address);

  it('a name that answers public first and loopback next is refused on the second connection', async () => {
    const answers = ['127.0.0.2', '127.0.0.1'];
    const lookups: string[] = [];
    const server = await serve((_request, response, self) => {
      response.writeHead(302, { location: `http://rebind.test:${self.port}/again` }).end();
    }, '127.0.0.2');
    const inner = await serve(respond(200, {}, 'INTERNAL SECRET'));
    const tool = createHttpFetchTool(
      {},
      {
        checkAddress: publicStandIn,
        resolve: async (hostname) => {
          lookups.push(hostname);
          return [{ address: answers.shift() ?? '127.0.0.1', family: 4 }];
        },
      },
    );
    await expect(tool.execute({ url: `http://rebind.test:${server.port}/` }, toolContext())).rejects.toThrow(
      `refused: rebind.test resolves to 127.0.0.1, a loopback address; ${PUBLIC_ONLY} (redirect 1 to http://rebind.test:${server.port}/again)`,
    );
    expect(lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(server.requests.map((request) => request.url)).toEqual(['/']);
    expect(inner.requests).toEqual([]);
  });

  it('a redirect loop stops after maxRedirects', async () => {
    const server = await serve((_request, response) => response.writeHead(307, { location: '/loop' }).end());
    const tool = httpFetchTool({ allowPrivateNetworks: true, maxRedirects: 3 });
    await expect(tool.execute({ url: `${server.origin}/loop` }, toolContext())).rejects.toThrow(
      'http_fetch: refused: too many redirects (more than 3); the next one was to /loop',
    );
    expect(server.requests).toHaveLength(4);
  });

  it.each([
    ['ftp://example.com/file', 'only http and https URLs may be fetched, not ftp:'],
    ['file:///etc/passwd', 'only http and https URLs may be fetched, not file:'],
    ['javascript:alert(1)', 'only http and https URLs may be fetched, not javascript:'],
    ['data:text/plain,hello', 'only http and https URLs may be fetched, not data:'],
    ['http://user:pass@127.0.0.1/', 'URLs with credentials (user:password@host) are refused'],
    ['//user@127.0.0.1/', 'URLs with credentials (user:password@host) are refused'],
    ['http://[::1', 'is not a valid URL'],
  ])('a Location of %s is refused', async (location, reason) => {
    const server = await serve(respond(302, { location }));
    const tool = httpFetchTool({ allowPrivateNetworks: true });
    await expect(tool.execute({ url: server.origin }, toolContext())).rejects.toThrow(reason);
    expect(server.requests).toHaveLength(1);
  });
});

describe('http_fetch: hostile responses', () => {
  const privateFetch = (options = {}) => httpFetchTool({ allowPrivateNetworks: true, ...options });

  it('huge headers are refused as an invalid response', async () => {
    const port = await serveRaw((socket) => {
      socket.on('error', () => undefined);
      socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(200_000)}\r\n\r\nbody`);
    });
    await expect(privateFetch().execute({ url: `http://127.0.0.1:${port}/` }, toolContext())).rejects.toThrow(
      /http_fetch: the server sent an invalid HTTP response \(.*(Header overflow|HPE_HEADER_OVERFLOW)/i,
    );
  });

  it('a response that never ends is cut at maxBytes; one that stalls ends at the timeout', async () => {
    const endless = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => response.write('x'.repeat(1024)), 1);
      response.on('close', () => clearInterval(timer));
    });
    expect(await privateFetch({ maxBytes: 5000 }).execute({ url: endless.origin }, toolContext())).toMatchObject({
      bytes: 5000,
      truncated: true,
      body: 'x'.repeat(5000),
    });
    const stalled = await serve((_request, response) => response.writeHead(200).write('partial'));
    await expect(privateFetch({ timeoutMs: 300 }).execute({ url: stalled.origin }, toolContext())).rejects.toThrow(
      `http_fetch: timed out after 300 ms (${stalled.origin}/)`,
    );
  });

  it('a brotli bomb stops at maxBytes of decoded body', async () => {
    const bomb = brotliCompressSync(Buffer.alloc(50_000_000, 'a'), {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 },
    });
    expect(bomb.length).toBeLessThan(100_000);
    const server = await serve(respond(200, { 'content-type': 'text/plain', 'content-encoding': 'br' }, bomb));
    expect(await privateFetch({ maxBytes: 4096 }).execute({ url: server.origin }, toolContext())).toMatchObject({
      bytes: 4096,
      truncated: true,
      body: 'a'.repeat(4096),
    });
  });

  it.each([
    'text/plain; charset=utf-7',
    'text/plain; charset=no-such-charset',
    'text/plain; charset=iso-2022-kr',
    'text/plain; charset="',
    'text/plain; charset=',
  ])('an invalid or unsafe charset (%s) falls back to UTF-8', async (contentType) => {
    const server = await serve(respond(200, { 'content-type': contentType }, Buffer.from('héllo +AGEAYgBj-', 'utf8')));
    expect(await privateFetch().execute({ url: server.origin }, toolContext())).toMatchObject({
      status: 200,
      body: 'héllo +AGEAYgBj-',
    });
  });

  it('a 101 Switching Protocols answer ends with an error, not a hang or a crash', async () => {
    const port = await serveRaw((socket) => {
      socket.on('error', () => undefined);
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
    });
    await expect(
      privateFetch({ timeoutMs: 2_000 }).execute({ url: `http://127.0.0.1:${port}/` }, toolContext()),
    ).rejects.toThrow(/^http_fetch: /);
  });
});
