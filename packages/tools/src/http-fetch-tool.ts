import { isIP } from 'node:net';
import type { Tool, ToolContext } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { type AddressCheck, checkAddress } from './check-address';
import { decodeBody, isBinaryContentType } from './decode-body';
import { fetchOnce, isRedirect } from './fetch-once';
import { FetchRefusedError, guardedLookup, type ResolveHost, systemResolve } from './guarded-lookup';
import {
  type HttpFetchToolOptions,
  type ResolvedHttpFetchOptions,
  resolveHttpFetchOptions,
} from './http-fetch-options';
import { readArguments, readString } from './read-arguments';

/** Arguments of the http_fetch tool. */
export interface HttpFetchArguments {
  url: string;
  method?: 'GET' | 'HEAD';
}

/** What the http_fetch tool returns. Any HTTP status (404, 500, ...) is a result, not an error. */
export interface HttpFetchResult {
  /** The URL as requested. */
  url: string;
  /** The URL of the final response, after redirects. */
  finalUrl: string;
  /** How many redirects were followed. */
  redirects: number;
  status: number;
  statusText: string;
  /** The `Content-Type` header, or `null`. */
  contentType: string | null;
  /** The body as text (charset from `Content-Type`, default UTF-8); empty for HEAD and for binary content. */
  body: string;
  /** Bytes of (decoded) body read, at most `maxBytes`. */
  bytes: number;
  /** True when the body was longer than `maxBytes` and the rest was not read. */
  truncated: boolean;
  /** True when the content type is binary (image, audio, video, archive, PDF): the body is not decoded. */
  binary: boolean;
}

/** Test seams: how host names resolve and how addresses are judged. Not part of the public API. */
export interface HttpFetchInternals {
  resolve?: ResolveHost;
  checkAddress?: (address: string) => AddressCheck;
}

const MAX_URL_LENGTH = 8_192;
const TOOL = 'http_fetch';
const TIMEOUT = Symbol('timeout');

/** Creates the tool with test seams; `httpFetchTool` is this without them. */
export function createHttpFetchTool(
  options: HttpFetchToolOptions = {},
  internals: HttpFetchInternals = {},
): Tool<HttpFetchArguments, HttpFetchResult> {
  const settings = resolveHttpFetchOptions(options);
  const check =
    internals.checkAddress ??
    ((address: string) => checkAddress(address, { allowPrivateNetworks: settings.allowPrivateNetworks }));
  const lookup = guardedLookup(internals.resolve ?? systemResolve, check);
  return {
    name: TOOL,
    description:
      'Fetch a public web page or API over http(s) with GET or HEAD and return its status, content type and ' +
      `text (at most ${settings.maxBytes} bytes). Private and internal network addresses are refused.`,
    parameters: {
      type: 'object',
      properties: {
        url: { type: 'string', maxLength: MAX_URL_LENGTH, description: 'Absolute http:// or https:// URL' },
        method: { type: 'string', enum: ['GET', 'HEAD'], description: 'Default GET' },
      },
      required: ['url'],
      additionalProperties: false,
    },
    readOnly: true,
    async execute(args, context) {
      const record = readArguments(args, TOOL, ['url', 'method']);
      const raw = readString(record, 'url', TOOL);
      const method = readString(record, 'method', TOOL, true) ?? 'GET';
      if (method !== 'GET' && method !== 'HEAD') {
        throw new Error(`${TOOL}: method ${JSON.stringify(method.slice(0, 20))} is not allowed; use "GET" or "HEAD"`);
      }
      if (raw.length > MAX_URL_LENGTH) {
        throw new Error(`${TOOL}: the URL is too long (${raw.length} characters, at most ${MAX_URL_LENGTH})`);
      }
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new Error(
          `${TOOL}: ${JSON.stringify(shorten(raw))} is not a valid absolute URL; write it like https://example.com/page`,
        );
      }
      return fetchFollowingRedirects(raw, url, method, settings, { lookup, check }, context);
    },
  };
}

/**
 * A tool named `http_fetch` that GETs or HEADs a URL over http or https, guarded against SSRF: every
 * connection (including each redirect hop, followed by hand up to `maxRedirects`) must reach a public
 * address, checked after DNS resolution and again on the connected socket, in every spelling (see
 * `checkAddress`). Proxy environment variables are ignored. Any port is allowed. Read-only.
 *
 * Refusals and failures (scheme, credentials in the URL, allow-list, blocked address, too many redirects,
 * timeout, abort through `context.signal`, DNS or connection errors) throw an `Error` saying what and why.
 * @throws ConfigError for invalid options, at creation.
 */
export function httpFetchTool(options: HttpFetchToolOptions = {}): Tool<HttpFetchArguments, HttpFetchResult> {
  return createHttpFetchTool(options);
}

async function fetchFollowingRedirects(
  requested: string,
  start: URL,
  method: 'GET' | 'HEAD',
  settings: ResolvedHttpFetchOptions,
  guard: { lookup: ReturnType<typeof guardedLookup>; check: (address: string) => AddressCheck },
  context: ToolContext | undefined,
): Promise<HttpFetchResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(TIMEOUT), settings.timeoutMs);
  const outer = context?.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });

  let url = start;
  let redirects = 0;
  const where = () => (redirects === 0 ? shorten(url.href) : `redirect ${redirects} to ${shorten(url.href)}`);
  try {
    for (;;) {
      refuseTarget(url, settings, guard.check);
      const response = await fetchOnce({
        url,
        method,
        maxBytes: settings.maxBytes,
        signal: controller.signal,
        ...guard,
      });
      if (isRedirect(response.status, response.headers)) {
        const location = response.headers.location!;
        if (redirects >= settings.maxRedirects) {
          throw new FetchRefusedError(
            `too many redirects (more than ${settings.maxRedirects}); the next one was to ${shorten(location)}`,
          );
        }
        const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
        if (next === undefined)
          throw new FetchRefusedError(`the redirect location ${JSON.stringify(shorten(location))} is not a valid URL`);
        url = next;
        redirects += 1;
        continue;
      }
      const contentType =
        typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : null;
      const binary = isBinaryContentType(contentType ?? undefined);
      return {
        url: requested,
        finalUrl: url.href,
        redirects,
        status: response.status,
        statusText: response.statusText,
        contentType,
        body: binary ? '' : decodeBody(response.body, contentType ?? undefined, response.truncated),
        bytes: response.body.length,
        truncated: response.truncated,
        binary,
      };
    }
  } catch (error) {
    if (controller.signal.aborted && controller.signal.reason === TIMEOUT) {
      throw new Error(`${TOOL}: timed out after ${settings.timeoutMs} ms (${where()})`);
    }
    if (outer?.aborted) throw new Error(`${TOOL}: aborted (${where()})`, { cause: error });
    throw new Error(`${TOOL}: ${describeFailure(error)} (${where()})`, { cause: error });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** Throws when a target URL may not even be tried: scheme, credentials, allow-list, blocked IP literal. */
function refuseTarget(url: URL, settings: ResolvedHttpFetchOptions, check: (address: string) => AddressCheck): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError(`only http and https URLs may be fetched, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusedError('URLs with credentials (user:password@host) are refused');
  }
  if (settings.allowHosts !== undefined && !settings.allowHosts.matches(url.hostname)) {
    throw new FetchRefusedError(
      `host ${url.hostname} is not in the allow-list (${settings.allowHosts.entries.join(', ')})`,
    );
  }
  const bare = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(bare) !== 0) {
    const verdict = check(bare);
    if (!verdict.allowed) throw new FetchRefusedError(verdict.reason, { address: true });
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof FetchRefusedError) {
    return error.address
      ? `refused: ${error.message}; only public internet addresses may be fetched`
      : `refused: ${error.message}`;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const message = errorMessage(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'could not resolve the host name';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was reset';
  if (code.startsWith('HPE_')) return `the server sent an invalid HTTP response (${message})`;
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
    return `TLS failed: ${message}`;
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code.startsWith('ERR__'))
    return 'the compressed body is corrupt';
  return `the request failed: ${message}`;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
