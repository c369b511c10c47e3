import { describe, expect, it } from 'vitest';
import { createServer } from '../src/create-server';
import { INSPECTOR_CSP, inspectorRoot } from '../src/routes/web-routes';

describe('web inspector routes', () => {
  it.skipIf(!inspectorRoot() && process.env.CI !== 'true')(
    'serves the built page and its assets with the strict CSP, no outside URL in them',
    async () => {
      const { app } = await createServer({ env: {}, store: 'memory:' });
      try {
        const page = await app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1:3000' } });
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-security-policy']).toBe(INSPECTOR_CSP);
        expect(page.body).toContain('<div id="app"></div>');
        expect(page.body).not.toMatch(/https?:\/\//);
        const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
        expect(script).toBeDefined();
        const asset = await app.inject({ method: 'GET', url: `/${script}`, headers: { host: '127.0.0.1:3000' } });
        expect(asset.statusCode).toBe(200);
        expect(asset.headers['content-type']).toMatch(/javascript/);
        expect(asset.headers['content-security-policy']).toBe(INSPECTOR_CSP);
      } finally {
        await app.close();
      }
    },
  );

  it('refuses a page request with a foreign Host (DNS rebinding) like the API', async () => {
    const { app } = await createServer({ env: {}, store: 'memory:' });
    try {
      const page = await app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example' } });
      expect(page.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });
});
