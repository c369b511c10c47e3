import { ConfigError } from '@bridle/protocol';

/** A Bridle server as the CLI talks to it: its API's base URL and the caller's token. */
export interface ServerApi {
  /** The URL of `path` under the server's `/api/` (path without a leading slash, e.g. `runs/abc/events`). */
  url(path: string): URL;
  /** Request headers: the bearer token (`BRIDLE_API_TOKEN`) when there is one, plus `extra`. */
  headers(extra?: Record<string, string>): Record<string, string>;
  /** The server's origin, for messages. */
  readonly origin: string;
}

/**
 * The server at `server` (its base URL, e.g. `http://127.0.0.1:3000`), authenticated with `token` when given.
 * Throws `ConfigError` naming the flag for a value that is not an http(s) URL.
 */
export function serverApi(server: string, token: string | undefined): ServerApi {
  let base: URL | undefined;
  try {
    base = new URL(server);
  } catch {
    base = undefined;
  }
  if (base === undefined || (base.protocol !== 'http:' && base.protocol !== 'https:'))
    throw new ConfigError(
      `Invalid --server ${JSON.stringify(server)}: give the server's base URL, e.g. http://127.0.0.1:3000.`,
    );
  const root = base.href.endsWith('/') ? base : new URL(`${base.href}/`);
  const bearer = token?.trim();
  return {
    url: (path) => new URL(`api/${path}`, root),
    headers: (extra = {}) => ({ ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...extra }),
    origin: base.origin,
  };
}

/** The message of a server's JSON error body (`{ error: { code, message } }`), or a line naming the status. */
export async function serverError(response: Response): Promise<{ code?: string; message: string }> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  return {
    ...(body.error?.code === undefined ? {} : { code: body.error.code }),
    message: body.error?.message ?? `the server answered ${response.status} ${response.statusText}`.trim(),
  };
}
