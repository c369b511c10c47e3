import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index';
import { echoModel, json, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const TOKEN = 'a-test-token-0123456789abcdef';

/** The document the server serves, checked against the official OpenAPI 3.0 schema by a standard validator. */
async function validate(document: unknown) {
  const validator = new Validator();
  const result = await validator.validate(document as Parameters<Validator['validate']>[0]);
  return { valid: result.valid, version: validator.version, errors: result.errors };
}

describe('GET /openapi.json is a valid OpenAPI 3.0.3 document', () => {
  it('with a token and every optional face', async () => {
    const server = await startTestServer({
      model: echoModel(),
      apiToken: TOKEN,
      corsOrigins: ['https://app.example'],
      rateLimit: '100/min',
    });
    const document = await json(
      await fetch(`${server.url}/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } }),
    );
    expect(await validate(document)).toEqual({ valid: true, version: '3.0', errors: undefined });
  });

  it('with named keys: it documents GET /api/usage and the bearer scheme', async () => {
    const server = await startTestServer({ model: echoModel(), apiKeysFile: writeKeysFile([KEYS.acmeReader]) });
    const document = await json(await fetch(`${server.url}/openapi.json`, { headers: bearer(KEYS.acmeReader) }));
    expect(await validate(document)).toEqual({ valid: true, version: '3.0', errors: undefined });
    expect(document.security).toEqual([{ bearer: [] }]);
    const usage = document.paths['/api/usage'].get;
    expect(Object.keys(usage.responses['200'].content['application/json'].schema.properties)).toEqual([
      'tenant',
      'key',
      'day',
      'limits',
    ]);
  });

  it('without a token (the default loopback server)', async () => {
    const server = await startTestServer({ model: echoModel() });
    const document = await json(await fetch(`${server.url}/openapi.json`));
    expect(await validate(document)).toEqual({ valid: true, version: '3.0', errors: undefined });
  });

  it('a route schema with JSON Schema keywords 3.0 lacks: shown as x- extensions, still enforced', async () => {
    const server = createServer({ env: {}, logger: false, port: 0, store: 'memory:', model: echoModel() });
    const body = {
      type: 'object',
      properties: {
        tags: { type: 'object', propertyNames: { maxLength: 3 }, additionalProperties: { type: 'string' } },
        list: { type: 'array', items: { type: 'string' }, contains: { const: 'a' } },
      },
      dependencies: { list: ['tags'] },
    };
    // In a plugin, so that it registers after @fastify/swagger (as the server's own routes do).
    server.app.register(async (scope) => {
      scope.post('/api/probe', { schema: { body, tags: ['api'] } }, async () => ({ ok: true }));
    });
    const url = await server.listen();
    try {
      const document = await json(await fetch(`${url}/openapi.json`));
      expect(await validate(document)).toEqual({ valid: true, version: '3.0', errors: undefined });
      expect(document.paths['/api/probe'].post.requestBody.content['application/json'].schema).toEqual({
        type: 'object',
        properties: {
          tags: { type: 'object', 'x-propertyNames': { maxLength: 3 }, additionalProperties: { type: 'string' } },
          list: { type: 'array', items: { type: 'string' }, 'x-contains': { enum: ['a'] } },
        },
        'x-dependencies': { list: ['tags'] },
      });
      const post = (payload: unknown) =>
        fetch(`${url}/api/probe`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
      expect((await post({ tags: { long: 'x' } })).status).toBe(400);
      expect((await post({ list: ['a'] })).status).toBe(400);
      expect((await post({ list: ['b'], tags: {} })).status).toBe(400);
      expect((await post({ list: ['a'], tags: { abc: 'x' } })).status).toBe(200);
    } finally {
      await server.shutdown();
    }
  });

  it('the validator rejects a 3.0 schema object that uses propertyNames (it is not a 3.0 keyword)', async () => {
    const document = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/x': {
          post: {
            requestBody: {
              content: { 'application/json': { schema: { type: 'object', propertyNames: { maxLength: 3 } } } },
            },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    expect((await validate(document)).valid).toBe(false);
  });
});
