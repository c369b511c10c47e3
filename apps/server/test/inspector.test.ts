import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRequest, ModelResponse } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { noteTool } from './durable-helpers';
import { deferred, json, postJson, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
const TOKEN = 'inspector-token-0123456789abcdef';
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };

const lookupTool = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  readOnly: true,
  execute: ({ key }: { key: string }) => `value of ${key}`,
};

/**
 * `look <key>` calls lookup, `note <text>` calls write_note (requires approval), `slow` waits for
 * `release()`; after a tool result it answers `done: <result>`.
 */
function inspectorModel() {
  const gate = deferred();
  const started = deferred();
  const model = scriptedModel(async (request: ModelRequest): Promise<ModelResponse> => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `done: ${last.content}`, usage: { inputTokens: 9, outputTokens: 3 } };
    const text = last?.role === 'user' ? last.content : '';
    const usage = { inputTokens: 4, outputTokens: 6 };
    if (text === 'slow') {
      started.resolve();
      await gate.promise;
      return { content: 'finally', usage };
    }
    const look = /^look (.+)$/.exec(text);
    if (look)
      return { content: '', toolCalls: [{ id: 'call-look', name: 'lookup', arguments: { key: look[1] } }], usage };
    const note = /^note (.+)$/.exec(text);
    if (note)
      return { content: '', toolCalls: [{ id: 'call-note', name: 'write_note', arguments: { text: note[1] } }], usage };
    return { content: `echo: ${text}`, usage };
  });
  return { model, started: started.promise, release: gate.resolve };
}

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

async function setup(options: { apiToken?: string } = {}) {
  const scripted = inspectorModel();
  const notes = noteTool();
  const server = await startTestServer({ model: scripted.model, tools: [lookupTool, notes.tool], ...options });
  browser = await openBrowser();
  return { server, scripted, notes, browser };
}

describe.skipIf(skip)('web inspector in chromium', { timeout: 180_000 }, () => {
  it("shows a finished run's tool call with its name, arguments and result (screenshot saved)", async () => {
    const { server, browser } = await setup();
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'look color' });
    expect(chat.body.status).toBe('completed');
    const { page } = browser;
    await page.goto(`${server.url}/`);
    const row = page.locator(`tr[data-run-id="${chat.body.runId}"]`);
    await row.waitFor(WAIT);
    expect(await row.locator('a').textContent()).toBe(chat.body.runId.slice(0, 8));
    await row.locator('a').click();
    const tool = page.locator('.entry-tool');
    await tool.waitFor(WAIT);
    expect(await tool.locator('.entry-title').textContent()).toBe('tool lookup');
    expect(await tool.locator('.entry-body').textContent()).toBe(
      'arguments: {\n  "key": "color"\n}\nresult: value of color',
    );
    expect(await page.locator('.run h2 .status').textContent()).toBe('completed');
    const folder = process.env.BRIDLE_UPDATE_SCREENSHOT === '1' ? join(import.meta.dirname, '../docs') : tmpdir();
    await mkdir(folder, { recursive: true });
    const file = join(folder, 'inspector-run.png');
    await page.locator('main').screenshot({ path: file });
    console.info(`inspector screenshot: ${file}`);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('updates a live run without a reload', async () => {
    const { server, scripted, browser } = await setup();
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'slow' });
    await scripted.started;
    const running = await json(await fetch(`${server.url}/api/runs?status=running`));
    const runId = running.runs[0].runId as string;
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.locator('.run h2 .live').waitFor(WAIT);
    expect(await page.locator('.run h2 .status').textContent()).toBe('running');
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    scripted.release();
    expect((await chat).body.status).toBe('completed');
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    await page.locator('.entry-run', { hasText: 'run ended · completed' }).waitFor(WAIT);
    expect(navigations).toEqual([]);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('Approve on a paused run resumes it; a second click elsewhere is told clearly', async () => {
    const { server, notes, browser } = await setup();
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' });
    expect(chat.body.status).toBe('awaiting_approval');
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${chat.body.runId}`);
    const approval = page.locator('.approval[data-call-id="call-note"]');
    await approval.waitFor(WAIT);
    expect(await approval.locator('strong').textContent()).toBe('write_note');
    // Another tab of the same page, opened before the decision.
    const other = await browser.context.newPage();
    await other.goto(`${server.url}/#/runs/${chat.body.runId}`);
    await other.locator('.approval button.approve').waitFor(WAIT);

    await approval.locator('button.approve').click();
    await page.locator('.notice', { hasText: 'Approved write_note: the run resumes.' }).waitFor(WAIT);
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    expect(notes.written).toEqual(['milk']);

    await other.locator('.approval button.approve').click();
    await other
      .locator('.notice', {
        hasText: `Cannot decide call "call-note": run ${chat.body.runId} is not waiting for approval (status completed). Nothing was run.`,
      })
      .waitFor(WAIT);
    expect(notes.written).toEqual(['milk']);
    // The refused click's 409 is the only console line (Chromium logs failed fetches).
    expect(browser.consoleErrors.filter((line) => !/status of 409/.test(line))).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it("a stale tab's Approve never applies to the call the model asked next under the same id", async () => {
    const notes = noteTool();
    const content = `${'a'.repeat(2000)}${'z'.repeat(2000)}`;
    const model = scriptedModel([
      { content: '', toolCalls: [{ id: 'call_1', name: 'write_note', arguments: { text: 'milk' } }] },
      // The model reuses call_1: a long first value, then the target of the call.
      {
        content: '',
        toolCalls: [
          { id: 'call_1', name: 'write_note', arguments: { text: content, path: '.github/workflows/ci.yml' } },
        ],
      },
      { content: 'done' },
    ]);
    const server = await startTestServer({ model, tools: [{ ...notes.tool, parameters: { type: 'object' } }] });
    browser = await openBrowser();
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'note milk' });
    expect(chat.body.status).toBe('awaiting_approval');
    const { page } = browser;
    const runUrl = `${server.url}/#/runs/${chat.body.runId}`;
    await page.goto(runUrl);
    // A second tab, opened on the first pause and never reloaded.
    const stale = await browser.context.newPage();
    await stale.goto(runUrl);
    await stale.locator('.approval[data-call-id="call_1"] button.approve').waitFor(WAIT);

    await page.locator('.approval[data-call-id="call_1"] button.approve').click();
    await page.locator('.notice', { hasText: 'Approved write_note: the run resumes.' }).waitFor(WAIT);
    // The run paused again on the renamed call; this tab reloads and shows it, every key included.
    const next = page.locator('.approval[data-call-id="call_1-2"]');
    await next.waitFor(WAIT);
    expect(await next.locator('dt').allTextContents()).toEqual(['text', 'path']);
    expect(await next.locator('dd').allTextContents()).toEqual([
      `"${'a'.repeat(200)}…[3600 characters]…${'z'.repeat(200)}"`,
      '".github/workflows/ci.yml"',
    ]);
    const full = next.locator('details.full-arguments');
    expect(await full.locator('summary').textContent()).toBe('Show all arguments (3600 characters shortened above)');
    expect(await full.locator('pre').isVisible()).toBe(false);
    await full.locator('summary').click();
    expect(JSON.parse((await full.locator('pre').textContent()) as string)).toEqual({
      text: content,
      path: '.github/workflows/ci.yml',
    });
    expect(notes.written).toEqual(['milk']);

    await stale.locator('.approval[data-call-id="call_1"] button.approve').click();
    await stale
      .locator('.notice', {
        hasText: `Cannot decide call "call_1": it is not pending in run ${chat.body.runId} (pending: "call_1-2"). Nothing was run.`,
      })
      .waitFor(WAIT);
    // The stale tab reloads onto the call that is pending now; nothing ran for it.
    await stale.locator('.approval[data-call-id="call_1-2"]').waitFor(WAIT);
    expect(notes.written).toEqual(['milk']);
    const run = await json(await fetch(`${server.url}/api/runs/${chat.body.runId}`));
    expect(run.status).toBe('awaiting_approval');
    expect(browser.consoleErrors.filter((line) => !/status of 409/.test(line))).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('with BRIDLE_API_TOKEN asks for the token once (sessionStorage, never URL or cookie); a wrong one is said clearly', async () => {
    const { server, browser } = await setup({ apiToken: TOKEN });
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'hello' }, { authorization: `Bearer ${TOKEN}` });
    const { page } = browser;
    await page.goto(`${server.url}/`);
    const prompt = page.locator('form.token');
    await prompt.waitFor(WAIT);
    expect(await prompt.locator('p').textContent()).toBe('This server needs its API token.');
    await prompt.locator('input').fill('not-the-token-at-all-0000');
    await prompt.locator('button').click();
    await page
      .locator('form.token p', { hasText: 'That token was refused: enter the server’s API token.' })
      .waitFor(WAIT);
    await page.locator('form.token input').fill(TOKEN);
    await page.locator('form.token button').click();
    await page.locator(`tr[data-run-id="${chat.body.runId}"]`).waitFor(WAIT);

    // Once per tab: a reload and another view do not ask again.
    await page.reload();
    await page.locator(`tr[data-run-id="${chat.body.runId}"]`).waitFor(WAIT);
    await page.locator(`tr[data-run-id="${chat.body.runId}"] a`).click();
    await page.locator('.entry-run', { hasText: 'run ended · completed' }).waitFor(WAIT);
    expect(await page.locator('form.token').count()).toBe(0);
    expect(await page.evaluate(`sessionStorage.getItem('bridle-api-token')`)).toBe(TOKEN);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await browser.context.cookies()).toEqual([]);
    expect(browser.requests.filter((url) => url.includes(TOKEN))).toEqual([]);
    expect(page.url()).not.toContain(TOKEN);
    // Only the two refused requests (no token, then the wrong one) are console lines.
    expect(browser.consoleErrors.filter((line) => !/status of 401/.test(line))).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });
});
