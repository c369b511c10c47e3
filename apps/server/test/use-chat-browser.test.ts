import { once } from 'node:events';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteTool } from './durable-helpers';
import { startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';
import { lookupTool, uiModel } from './ui-helpers';

const ENTRY = fileURLToPath(new URL('./fixtures/use-chat-page.jsx', import.meta.url));

/** Bundles the React page (react, @ai-sdk/react, ai) for the browser, in memory. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** Serves the page and its bundle from another origin than the Bridle server's (so CORS is exercised). */
async function servePage(bundle: string): Promise<{ url: string; server: Server }> {
  const server = createHttpServer((request, response) => {
    if (request.url?.startsWith('/app.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      return;
    }
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><html lang="en"><title>useChat</title><div id="root"></div><script type="module" src="/app.js"></script></html>',
      );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const unavailable = browserUnavailable(true);
let page: { url: string; server: Server } | undefined;
let browser: InspectorBrowser | undefined;

beforeAll(async () => {
  if (unavailable) return;
  page = await servePage(await bundlePage());
  browser = await openBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  page?.server.close();
});

describe.skipIf(unavailable !== undefined)('useChat (@ai-sdk/react) in Chromium against POST /api/ui/chat', () => {
  it('streams answers with tool calls, and approves a call from the page; CORS holds for the stream', async () => {
    const pageOrigin = (page as { url: string }).url;
    const { tool, written } = noteTool();
    const server = await startTestServer({
      model: uiModel(),
      tools: [tool, lookupTool],
      env: { BRIDLE_CORS_ORIGINS: pageOrigin },
    });
    const { page: tab, consoleErrors, requests } = browser as InspectorBrowser;
    await tab.goto(`${pageOrigin}/?server=${encodeURIComponent(server.url)}`);
    const input = tab.getByLabel('message');
    await input.fill('look color');
    await tab.getByRole('button', { name: 'Send' }).click();
    await tab.locator('.assistant .text', { hasText: 'done: value of color' }).waitFor();
    expect(await tab.locator('.assistant .tool[data-tool="tool-lookup"]').getAttribute('data-state')).toBe(
      'output-available',
    );
    expect(await tab.locator('.assistant .tool .output').first().textContent()).toBe('value of color');

    await input.fill('note milk');
    await tab.getByRole('button', { name: 'Send' }).click();
    await tab.getByRole('button', { name: 'Approve' }).click();
    await tab.locator('.assistant .text', { hasText: 'done: wrote milk' }).waitFor();
    expect(written).toEqual(['milk']);
    expect(await tab.locator('#status').textContent()).toBe('ready');
    expect(await tab.locator('#error').count()).toBe(0);
    expect(consoleErrors).toEqual([]);
    expect(outsideRequests(requests)).toEqual([]);
  });
});
