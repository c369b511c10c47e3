import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The inspector page runs under this policy: only the server's own scripts, styles and API; no inline
 * script, no framing, no outside request of any kind.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the built inspector is: beside the bundle in dist, or dist/web when running from sources. */
export function inspectorRoot(): string | undefined {
  const candidates = [new URL('./web/', import.meta.url), new URL('../../dist/web/', import.meta.url)];
  return candidates.map((url) => fileURLToPath(url)).find((path) => existsSync(`${path}index.html`));
}

/**
 * Serves the web run inspector at `/` (its assets under `/assets/`), with a strict Content-Security-Policy.
 * The page is public; every API call it makes carries the token the user types in (kept in the tab only).
 * Without a build (`pnpm --filter @bridle/server build`), `/` says how to build it.
 */
export function registerWebRoutes(app: FastifyInstance): void {
  const root = inspectorRoot();
  const secure = (reply: { header(name: string, value: string): unknown }): void => {
    reply.header('content-security-policy', INSPECTOR_CSP);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-origin');
  };
  if (!root) {
    // Hidden from /openapi.json, like the static routes (@fastify/static's schemaHide).
    app.get('/', { schema: { hide: true } }, async (_request, reply) => {
      secure(reply);
      reply.code(503).type('text/plain; charset=utf-8');
      return 'The web inspector is not built: run `pnpm --filter @bridle/server build`.\n';
    });
    return;
  }
  app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    wildcard: false,
    // @fastify/static 10 hands the Fastify reply here (not the raw response).
    setHeaders: (reply: { header(name: string, value: string): unknown }) => secure(reply),
  });
}
