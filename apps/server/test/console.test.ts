// The run console in chromium (issue 32): the list's filters and search, a run's waterfall with a retried
// model call and a sub-agent, the diff of an edit approved from its card, compare, the overview's charts,
// the chat panel's keys, sessions; axe-core on every page, no console errors, no outside request.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentTool } from '@bridle/core';
import { type ModelRequest, type ModelResponse, ProviderError } from '@bridle/protocol';
import { scriptedModel } from '@bridle/testing';
import { editFileTool, Workspace } from '@bridle/workspace-tools';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { seriousViolations } from './console-browser';
import { noteModel, noteTool } from './durable-helpers';
import { postJson, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };
const SCREENSHOTS = process.env.BRIDLE_UPDATE_SCREENSHOT === '1' ? join(import.meta.dirname, '../docs') : tmpdir();

const lookup = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } } },
  readOnly: true,
  execute: ({ key }: { key: string }) => `value of ${key}`,
};

/**
 * `look <key>` calls lookup; `flaky ...` fails its first attempt (a retryable provider error) and then
 * delegates to `helper`; `edit` calls edit_file; anything else is answered in Markdown. Streams its text.
 */
function consoleModel() {
  let failed = false;
  return scriptedModel(
    (request: ModelRequest): ModelResponse => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return { content: `**done**: ${last.content}`, usage: { inputTokens: 30, outputTokens: 8, costUsd: 0.002 } };
      const text = last?.role === 'user' ? last.content : '';
      const usage = { inputTokens: 12, outputTokens: 5, costUsd: 0.001 };
      if (text.startsWith('look'))
        return {
          content: '',
          toolCalls: [{ id: 'call-look', name: 'lookup', arguments: { key: text.slice(5) } }],
          usage,
        };
      if (text.startsWith('flaky')) {
        if (!failed) {
          failed = true;
          throw new ProviderError({ code: 'server', message: 'upstream hiccup (503)', provider: 'scripted' });
        }
        return {
          content: '',
          toolCalls: [{ id: 'call-helper', name: 'helper', arguments: { prompt: 'hello' } }],
          usage,
        };
      }
      if (text === 'edit')
        return {
          content: '',
          toolCalls: [
            {
              id: 'call-edit',
              name: 'edit_file',
              arguments: { path: 'notes.txt', oldText: 'old line', newText: 'new line' },
            },
          ],
          usage,
        };
      return { content: `# Echo\n\nYou said: *${text.replaceAll('\n', ' / ')}*`, usage };
    },
    { stream: true, id: 'scripted:console' },
  );
}

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

async function setup() {
  const folder = await mkdtemp(join(tmpdir(), 'bridle-console-'));
  await writeFile(join(folder, 'notes.txt'), 'first\nold line\nlast\n');
  const workspace = await Workspace.open(folder);
  const helper = agentTool({ model: noteModel(), tools: [lookup] }, { name: 'helper', description: 'Helps' });
  const server = await startTestServer({
    model: consoleModel(),
    tools: [lookup, helper, { ...editFileTool(workspace), requiresApproval: true }, noteTool().tool],
    agent: { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } },
  });
  browser = await openBrowser();
  return { server, browser, folder };
}

async function accessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

async function shot(page: Page, name: string) {
  await mkdir(SCREENSHOTS, { recursive: true });
  const file = join(SCREENSHOTS, name);
  await page.locator('main').screenshot({ path: file });
  console.info(`console screenshot: ${file}`);
}

describe.skipIf(skip)('run console in chromium', { timeout: 240_000 }, () => {
  it('runs list: titles, search, status filter, the waiting count, paging controls', async () => {
    const { server, browser } = await setup();
    const deploy = await postJson(`${server.url}/api/chat`, { prompt: 'Deploy the API\nsecond line' });
    await postJson(`${server.url}/api/chat`, { prompt: 'look color' });
    await postJson(`${server.url}/api/chat`, { prompt: 'deploy the docs' });
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'edit' });
    expect(paused.body.status).toBe('awaiting_approval');
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.locator('tr[data-run-id]').nth(3).waitFor(WAIT);
    expect(await page.locator('.run-title').allTextContents()).toEqual([
      'edit',
      'deploy the docs',
      'look color',
      'Deploy the API',
    ]);
    await page.locator('.waiting', { hasText: '1 waiting for approval' }).waitFor(WAIT);
    await shot(page, 'console-runs.png');
    await accessible(page);

    await page.locator('input[name="search"]').fill('DEPLOY');
    await page.locator('input[name="search"]').press('Enter');
    await page.locator('tr[data-run-id]').nth(1).waitFor(WAIT);
    await expect.poll(() => page.locator('tr[data-run-id]').count(), WAIT).toBe(2);
    expect(await page.locator(`tr[data-run-id="${deploy.body.runId}"] .run-title`).textContent()).toBe(
      'Deploy the API',
    );

    await page.locator('input[name="search"]').fill('');
    await page.locator('select[name="status"]').selectOption('awaiting_approval');
    await page.locator('button', { hasText: 'Apply' }).click();
    await expect.poll(() => page.locator('tr[data-run-id]').count(), WAIT).toBe(1);
    expect(await page.locator('tr[data-run-id] .status').textContent()).toBe('waiting for approval');
    expect(await page.locator('button', { hasText: 'Older' }).isDisabled()).toBe(true);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('run page: prompt and answer as Markdown, a waterfall with a retried model call and a nested sub-agent', async () => {
    const { server, browser } = await setup();
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'flaky work' });
    expect(chat.body.status).toBe('completed');
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${chat.body.runId}`);
    await page.locator('.waterfall .bar-row').first().waitFor(WAIT);
    expect(await page.locator('.run h2 .run-title').textContent()).toBe('flaky work');
    expect(await page.locator('.answer .markdown strong').textContent()).toBe('done');
    // The retried call is one row with two attempts, the first failed.
    const retried = page.locator('.bar-model[data-attempts="2"]');
    expect(await retried.locator('.bar-label').textContent()).toBe('model · step 1 · 2 attempts');
    expect(await retried.locator('.bar.bar-failed').count()).toBe(1);
    // The sub-agent's calls are nested under the helper call.
    await page.locator('.bar-row[data-depth="1"]').first().waitFor(WAIT);
    const labels = await page
      .locator('.bar-row')
      .evaluateAll((rows) =>
        rows.map((row) => `${row.getAttribute('data-depth')} ${row.querySelector('.bar-label')?.textContent}`),
      );
    expect(labels).toEqual(['0 model · step 1 · 2 attempts', '0 tool helper', '1 model · step 1', '0 model · step 2']);
    await page.locator('.chart canvas').first().waitFor(WAIT);
    expect(await page.locator('.copy-replay code').textContent()).toBe(`bridle replay ${chat.body.runId}`);
    await shot(page, 'console-run.png');
    await accessible(page);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('approve an edit from its card; the edit shows as a diff; compare marks what differs', async () => {
    const { server, browser } = await setup();
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'edit' });
    expect(paused.body.status).toBe('awaiting_approval');
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${paused.body.runId}`);
    const card = page.locator('.approval[data-call-id="call-edit"]');
    await card.waitFor(WAIT);
    expect(await card.locator('dt').allTextContents()).toEqual(['path', 'oldText', 'newText']);
    await accessible(page);
    await card.locator('button.approve').click();
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    const diff = page.locator('.tool-call[data-call-id="call-edit"] .diff');
    await diff.waitFor(WAIT);
    expect(await diff.locator('figcaption').textContent()).toBe('notes.txt');
    expect(await diff.locator('.diff-removed').allTextContents()).toEqual(['- old line\n']);
    expect(await diff.locator('.diff-added').allTextContents()).toEqual(['+ new line\n']);

    const other = await postJson(`${server.url}/api/chat`, { prompt: 'look color' });
    await page.goto(`${server.url}/#/compare/${paused.body.runId}`);
    await page.locator(`.choices a[href="#/compare/${paused.body.runId}/${other.body.runId}"]`).click();
    await page.locator('.compare-table').waitFor(WAIT);
    const differs = await page
      .locator('tr.differs')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-line')));
    expect(differs).toEqual(expect.arrayContaining(['prompt', 'tool calls', 'answer']));
    expect(differs).not.toContain('status');
    expect(await page.locator('tr[data-line="status"]').getAttribute('class')).toBe('same');
    await accessible(page);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('overview: charts with data, p50/p95 and the slowest tools', async () => {
    const { server, browser } = await setup();
    await postJson(`${server.url}/api/chat`, { prompt: 'look color' });
    await postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    const { page } = browser;
    await page.goto(`${server.url}/#/overview`);
    await page.locator('.chart canvas').nth(2).waitFor(WAIT);
    expect(await page.locator('.chart figcaption').allTextContents()).toEqual([
      'Runs per hour by status',
      'Tokens per day by model',
      'Cost per day by model',
    ]);
    // uPlot's legend names each chart's series: the statuses, then the model.
    expect(await page.locator('.chart').nth(0).locator('.u-legend .u-label').allTextContents()).toContain('completed');
    expect(await page.locator('.chart').nth(1).locator('.u-legend .u-label').allTextContents()).toContain(
      'scripted:console',
    );
    expect(await page.locator('.slowest-tools tbody td.mono').allTextContents()).toEqual(['lookup']);
    expect(await page.locator('.p50').textContent()).not.toBe('–');
    await shot(page, 'console-overview.png');
    await accessible(page);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('chat panel: Shift+Enter breaks the line, Enter sends; the answer streams in as Markdown; sessions show it', async () => {
    const { server, browser } = await setup();
    const { page } = browser;
    await page.goto(`${server.url}/#/chat`);
    const box = page.locator('#chat-prompt');
    await box.click();
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    expect(await box.inputValue()).toBe('line one\nline two');
    await page.keyboard.press('Enter');
    await page.locator('.turn-answer .markdown h1', { hasText: 'Echo' }).waitFor(WAIT);
    expect(await page.locator('.turn-prompt').textContent()).toBe('line one\nline two');
    expect(await page.locator('.turn-answer .markdown em').textContent()).toBe('line one / line two');
    expect(await box.inputValue()).toBe('');
    await page.locator('.turn-run .status', { hasText: 'completed' }).waitFor(WAIT);
    await accessible(page);

    await page.goto(`${server.url}/#/sessions`);
    await page.locator('.sessions li a').first().click();
    await page.locator('.conversation .message-user').waitFor(WAIT);
    expect(await page.locator('.conversation .message-assistant h1').textContent()).toBe('Echo');
    await page.locator('.session-runs li').first().waitFor(WAIT);
    await accessible(page);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });
});
