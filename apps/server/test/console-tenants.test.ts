// The run console in chromium with a tenant's key (issue 34): its pages show that tenant's runs only: the
// runs list and its waiting count, the overview's aggregates, sessions, and another tenant's run page is
// "not found", exactly as an unknown id.
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { noteTool } from './durable-helpers';
import { postJson, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';
import { bearer, KEYS, writeKeysFile } from './tenant-helpers';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
const WAIT = { timeout: 60_000 };

const lookup = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } } },
  readOnly: true,
  execute: ({ key }: { key: string }) => `value of ${key}`,
};

/** `look <key>` calls lookup; `note <text>` calls write_note (approval needed); anything else is echoed. */
function tenantModel() {
  return scriptedModel(
    (request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `done: ${last.content}`, usage: { inputTokens: 3, outputTokens: 1 } };
      const text = last?.role === 'user' ? last.content : '';
      if (text.startsWith('look '))
        return { content: '', toolCalls: [{ id: 'call-look', name: 'lookup', arguments: { key: text.slice(5) } }] };
      if (text.startsWith('note '))
        return {
          content: '',
          toolCalls: [{ id: 'call-note', name: 'write_note', arguments: { text: text.slice(5) } }],
        };
      return { content: `echo: ${text}`, usage: { inputTokens: 2, outputTokens: 2 } };
    },
    { id: 'scripted:tenants' },
  );
}

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe.skipIf(skip)("the console with a tenant's key", { timeout: 240_000 }, () => {
  it("shows the tenant's runs, waiting count, overview and sessions only", async () => {
    const file = writeKeysFile([KEYS.acme, KEYS.globex]);
    const server = await startTestServer({
      model: tenantModel(),
      tools: [lookup, noteTool().tool],
      env: { BRIDLE_API_KEYS_FILE: file },
    });
    const acme = bearer(KEYS.acme);
    const secret = await postJson(`${server.url}/api/chat`, { prompt: 'acme secret plan' }, acme);
    await postJson(`${server.url}/api/chat`, { prompt: 'look acme-key' }, acme);
    expect((await postJson(`${server.url}/api/chat`, { prompt: 'note acme' }, acme)).body.status).toBe(
      'awaiting_approval',
    );
    const theirs = await postJson(`${server.url}/api/chat`, { prompt: 'globex hello' }, bearer(KEYS.globex));
    expect(theirs.body.status).toBe('completed');

    browser = await openBrowser();
    const { page } = browser;
    // The console keeps the key in the tab's sessionStorage (as its token form does).
    await page.addInitScript(`sessionStorage.setItem('bridle-api-token', ${JSON.stringify(KEYS.globex.secret)})`);
    await page.goto(`${server.url}/`);
    await page.locator('tr[data-run-id]').first().waitFor(WAIT);
    expect(await page.locator('.run-title').allTextContents()).toEqual(['globex hello']);
    await page.locator('.waiting', { hasText: '0 waiting for approval' }).waitFor(WAIT);

    await page.goto(`${server.url}/#/overview`);
    await page.locator('.chart canvas').nth(2).waitFor(WAIT);
    // acme's lookup call is not among the slowest tools; only globex's one run is counted.
    expect(await page.locator('.slowest-tools tbody td.mono').allTextContents()).toEqual([]);

    await page.goto(`${server.url}/#/sessions`);
    await page.locator('[data-session-id]').first().waitFor(WAIT);
    expect(
      await page
        .locator('[data-session-id]')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-session-id'))),
    ).toEqual([theirs.body.sessionId]);

    // acme's run page reads as an unknown run's.
    await page.goto(`${server.url}/#/runs/${secret.body.runId}`);
    await page.locator('.error').waitFor(WAIT);
    const shown = (await page.locator('.error').textContent()) ?? '';
    expect(shown).toContain(`Run ${secret.body.runId}`);
    expect(await page.locator('main').textContent()).not.toContain('acme secret plan');
    const unknown = '00000000-0000-4000-8000-000000000000';
    await page.goto(`${server.url}/#/runs/${unknown}`);
    await page.locator('.error', { hasText: `Run ${unknown}` }).waitFor(WAIT);
    expect((await page.locator('.error').textContent())?.replace(unknown, '<id>')).toBe(
      shown.replace(secret.body.runId, '<id>'),
    );
    expect(outsideRequests(browser.requests)).toEqual([]);
  });
});
