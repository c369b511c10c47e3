import { writeFileSync } from 'node:fs';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { createServer, keyDigest, parseTenantKeys } from '../src/index';
import { echoModel, json, postJson, startTestServer } from './helpers';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const TOKEN = 'a-test-token-0123456789abcdef';

describe('BRIDLE_API_KEYS_FILE: named keys, tenants and scopes', () => {
  it('lets each key in with its scopes, and BRIDLE_API_TOKEN stays an admin key of tenant default', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.acmeReader, KEYS.acmeAdmin]);
    const server = await startTestServer({
      model: echoModel(),
      env: { BRIDLE_API_KEYS_FILE: file, BRIDLE_API_TOKEN: TOKEN },
    });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'hi' }, bearer(KEYS.acme));
    expect(chat.status).toBe(200);
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'hi' }, bearer(KEYS.acmeAdmin))).status).toBe(200);
    expect(
      (await postJson(`${server.url}/api/chat`, { prompt: 'hi' }, { authorization: `Bearer ${TOKEN}` })).status,
    ).toBe(200);

    const refused = await postJson(`${server.url}/api/chat`, { prompt: 'hi' }, bearer(KEYS.acmeReader));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'forbidden',
      message:
        'The key acme-reader lacks the scope "chat" this route needs: add it to the key\'s scopes in BRIDLE_API_KEYS_FILE.',
    });
    const approve = await postJson(
      `${server.url}/api/runs/${chat.body.runId}/approvals`,
      { approvals: { x: true } },
      bearer(KEYS.acmeReader),
    );
    expect(approve.status).toBe(403);
    expect(approve.body.error.message).toContain('"approve"');
    const v1 = await postJson(
      `${server.url}/v1/chat/completions`,
      { model: 'bridle:assistant', messages: [{ role: 'user', content: 'x' }] },
      bearer(KEYS.acmeReader),
    );
    expect(v1.status).toBe(403);
    // The reader reads its tenant's runs.
    const runs = await fetch(`${server.url}/api/runs/${chat.body.runId}`, { headers: bearer(KEYS.acmeReader) });
    expect(runs.status).toBe(200);
    expect((await fetch(`${server.url}/openapi.json`, { headers: bearer(KEYS.acmeReader) })).status).toBe(200);
  });

  it('refuses a missing, unknown or malformed key with 401, before reading the body', async () => {
    const server = await startTestServer({
      model: echoModel(),
      env: { BRIDLE_API_KEYS_FILE: writeKeysFile([KEYS.acme]) },
    });
    const missing = await postJson(`${server.url}/api/chat`, '{not json');
    expect(missing.status).toBe(401);
    expect(missing.body.error.message).toBe(
      'This server needs an API key: send the header "Authorization: Bearer <key>" with a key of BRIDLE_API_KEYS_FILE.',
    );
    // The digest itself is not a key: the file never holds what a client sends.
    for (const header of [`Bearer ${KEYS.acme.secret}x`, `Bearer ${keyDigest(KEYS.acme.secret)}`, KEYS.acme.secret]) {
      const wrong = await postJson(`${server.url}/api/chat`, { prompt: 'x' }, { authorization: header });
      expect(wrong.status).toBe(401);
    }
    expect((await fetch(`${server.url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/runs`)).status).toBe(401);
  });

  it('a key removed from the file stops working without a restart; a broken edit keeps the previous keys', async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.globex]);
    const server = await startTestServer({ model: echoModel(), env: { BRIDLE_API_KEYS_FILE: file } });
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) })).status).toBe(200);
    writeFileSync(file, '{ not json');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) })).status).toBe(200);
    writeKeysFile([KEYS.acme], {}, file);
    await waitFor(async () => (await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.globex) })).status === 401);
    expect((await fetch(`${server.url}/api/runs`, { headers: bearer(KEYS.acme) })).status).toBe(200);
  });

  it('lets a server with a keys file listen beyond loopback, and refuses a bad file at startup', () => {
    const file = writeKeysFile([KEYS.acme]);
    expect(() => createServer({ env: { HOST: '0.0.0.0', BRIDLE_API_KEYS_FILE: file }, logger: false })).not.toThrow();
    expect(() => createServer({ env: { BRIDLE_API_KEYS_FILE: `${file}.missing` }, logger: false })).toThrow(
      `Invalid BRIDLE_API_KEYS_FILE ${file}.missing: the file cannot be read (ENOENT)`,
    );
  });

  it('parses keys files and names what is wrong', () => {
    const good = parseTenantKeys(
      JSON.stringify({
        keys: [{ name: 'a', tenant: 't', scopes: ['chat', 'chat'], sha256: keyDigest('s') }],
        tenants: { t: { requestsPerMinute: 10, costUsdPerDay: 1.5 } },
      }),
      'k.json',
    );
    expect([...good.byDigest.values()]).toEqual([{ name: 'a', tenant: 't', scopes: ['chat'], sha256: keyDigest('s') }]);
    expect(good.quotas.get('t')).toEqual({ requestsPerMinute: 10, costUsdPerDay: 1.5 });
    const key = { name: 'a', tenant: 't', scopes: ['chat'], sha256: keyDigest('s') };
    const cases: [unknown, string][] = [
      [[], 'the file must hold an object'],
      [{ keys: [{ ...key, sha256: 's' }] }, 'keys[0].sha256 must be the 64 lower-case hex digits'],
      [
        { keys: [{ ...key, scopes: ['write'] }] },
        'keys[0].scopes has "write": expected chat, runs:read, approve, admin',
      ],
      [{ keys: [{ ...key, scopes: [] }] }, 'keys[0].scopes must be a non-empty list'],
      [{ keys: [{ ...key, secret: 'x' }] }, 'keys[0].secret is not a known field'],
      [{ keys: [key, { ...key, sha256: keyDigest('t') }] }, 'keys[1].name repeats the name "a"'],
      [{ keys: [key, { ...key, name: 'b' }] }, 'keys[1].sha256 repeats the digest of another key'],
      [{ keys: [{ ...key, tenant: '../x' }] }, 'keys[0].tenant must be 1 to 64 letters'],
      [{ keys: [key], tenants: { t: { tokensPerDay: 1.5 } } }, 'tenants.t.tokensPerDay must be a positive integer'],
      [{ keys: [key], tenants: { t: { costUsdPerRun: -1 } } }, 'tenants.t.costUsdPerRun must be a positive number'],
      [{ keys: [key], tenants: { t: { dollars: 1 } } }, 'tenants.t.dollars is not a known quota'],
    ];
    for (const [document, message] of cases) {
      expect(() => parseTenantKeys(JSON.stringify(document), 'k.json')).toThrow(ConfigError);
      expect(() => parseTenantKeys(JSON.stringify(document), 'k.json')).toThrow(
        `Invalid BRIDLE_API_KEYS_FILE k.json: ${message}`,
      );
    }
    expect(() => parseTenantKeys('{', 'k.json')).toThrow('Invalid BRIDLE_API_KEYS_FILE k.json: the file is not JSON');
  });

  it('answers an unknown path 404 to a valid key', async () => {
    const server = await startTestServer({
      model: echoModel(),
      env: { BRIDLE_API_KEYS_FILE: writeKeysFile([KEYS.acme]) },
    });
    expect((await json(await fetch(`${server.url}/api/nothing`, { headers: bearer(KEYS.acme) }))).error.code).toBe(
      'not_found',
    );
  });
});

/** Polls `check` every 100 ms, for at most 10 s. */
export async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the condition did not come true within 10 s');
}
