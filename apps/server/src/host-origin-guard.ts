import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ServerError } from './server-error';

/** Methods that only read: a foreign `Origin` is allowed on them (CORS keeps the answer from the page). */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The host name of a `Host` header, lower case, without its port; undefined when malformed. */
function hostName(header: string): string | undefined {
  const lower = header.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    if (end < 0 || (end + 1 < lower.length && !/^:\d{1,5}$/.test(lower.slice(end + 1)))) return undefined;
    return lower.slice(0, end + 1);
  }
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(lower);
  return match?.[1];
}

/**
 * True for the names that can only mean this machine: `localhost`, an IPv4 literal in 127.0.0.0/8,
 * `[::1]`. A name that merely resolves to 127.0.0.1 (`127.0.0.1.nip.io`, a rebinding domain) is not.
 */
function isLoopbackName(name: string): boolean {
  if (name === 'localhost') return true;
  if (name === '[::1]') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** Options of {@link hostOriginGuard}. */
export interface HostOriginGuardOptions {
  /** Names accepted in `Host` besides the loopback ones (lower case, no port). */
  allowedHosts: readonly string[];
  /** Origins allowed to make state-changing requests besides the server's own (exact `scheme://host[:port]`). */
  allowedOrigins: readonly string[];
}

/**
 * An `onRequest` hook against DNS rebinding and cross-site requests. `Host` must be a loopback name or
 * one of `allowedHosts` (else 403, on every route): a page on `attacker.example` that rebinds its name
 * to 127.0.0.1 still sends `Host: attacker.example`. On a state-changing method (not GET, HEAD,
 * OPTIONS) an `Origin` header, when present, must be the server's own origin (the one the `Host`
 * names) or one of `allowedOrigins`; `null` (sandboxed frames, `file:` pages) is foreign too.
 * Clients that are not browsers send no `Origin` and are not affected.
 */
export function hostOriginGuard(options: HostOriginGuardOptions) {
  const allowedHosts = new Set(options.allowedHosts);
  const allowedOrigins = new Set(options.allowedOrigins);
  // A client sends the same Host on every request: the last one accepted is not parsed again.
  let accepted: string | undefined;
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const host = request.headers.host ?? '';
    if (host !== accepted) {
      const name = hostName(host);
      if (name === undefined || (!isLoopbackName(name) && !allowedHosts.has(name))) {
        done(
          new ServerError(
            'forbidden',
            `Host "${host}" is not served here: use localhost or 127.0.0.1, or add the name to BRIDLE_ALLOWED_HOSTS.`,
          ),
        );
        return;
      }
      accepted = host;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !SAFE_METHODS.has(request.method) && !allowedOrigins.has(origin)) {
      if (!isSameOrigin(origin, host)) {
        done(
          new ServerError(
            'forbidden',
            `Origin ${origin} may not make this request: only the server's own pages and the origins in BRIDLE_CORS_ORIGINS may.`,
          ),
        );
        return;
      }
    }
    done();
  };
}

/** True when `origin` is `http(s)://` followed by exactly the authority the `Host` header names. */
function isSameOrigin(origin: string, host: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.toLowerCase()) return false;
  try {
    return url.host === new URL(`${url.protocol}//${host}`).host;
  } catch {
    return false;
  }
}
