import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { routeSchemaForOpenApi30 } from './openapi-schema';
import type { ServerConfig } from './server-config';
import { ServerError } from './server-error';

/** Headers a browser page may send to the API, and read from its answers. */
const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'accept', 'last-event-id'];
const CORS_EXPOSED_HEADERS = ['x-request-id', 'x-session-id', 'retry-after', 'location'];

/**
 * Registers the plugins every route depends on, before the routes (they hook route registration):
 * the OpenAPI document (@fastify/swagger, built from the route schemas), CORS for `corsOrigins` only
 * (@fastify/cors; none: not registered, CORS off) and the rate limit (@fastify/rate-limit; per API token
 * when the server has one, since only requests that carry it get this far, else per client address).
 * Routes opt out of the rate limit with `config: { rateLimit: false }`.
 */
export function registerPlugins(app: FastifyInstance, config: ServerConfig, version: string): void {
  app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Bridle server',
        version,
        description: 'Agents over HTTP: /api (Bridle) and /v1 (OpenAI-compatible). See the @bridle/server README.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      ...(config.apiToken || config.apiKeysFile ? { security: [{ bearer: [] }] } : {}),
      tags: [
        { name: 'api', description: 'Bridle API' },
        { name: 'openai', description: 'OpenAI-compatible face: the model bridle:<skill> names an agent' },
        { name: 'health', description: 'Probes (no token needed)' },
      ],
    },
    // The document is OpenAPI 3.0.3: JSON Schema keywords 3.0 lacks are shown as `x-` extensions.
    transform: ({ schema, url }) => ({ schema: routeSchemaForOpenApi30(schema) ?? schema, url }),
  });
  if (config.corsOrigins.length > 0) {
    // Loaded only when configured (a Promise of the module is a valid plugin for Fastify).
    app.register(import('@fastify/cors'), {
      origin: config.corsOrigins,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: CORS_REQUEST_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      credentials: false,
      maxAge: 600,
    });
  }
  const limit = config.rateLimit;
  if (limit) {
    app.register(import('@fastify/rate-limit'), {
      global: true,
      max: limit.max,
      timeWindow: limit.timeWindowMs,
      // Without a token, the plugin's own key: the client address (IPv6 grouped by subnet).
      // With named keys: per key (its header), so one tenant's flood does not spend another's allowance.
      ...(config.apiKeysFile
        ? {
            keyGenerator: (request: { headers: { authorization?: string }; ip: string }) =>
              request.headers.authorization ?? request.ip,
          }
        : config.apiToken
          ? { keyGenerator: () => 'token' }
          : {}),
      errorResponseBuilder: (_request, context) =>
        new ServerError(
          'rate_limited',
          `Rate limit of BRIDLE_RATE_LIMIT=${limit.text} reached: retry in ${context.after}.`,
          { retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)) },
        ),
    });
  }
}
