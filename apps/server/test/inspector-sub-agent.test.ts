// The inspector's approval card for a call a sub-agent made: the inner tool's own name and arguments,
// the sub-agent's run linked; Approve on the parent's page resumes both runs.
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { postJson, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';
import { subAgentSetup } from './sub-agent-helpers';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe.skipIf(skip)('inspector: a sub-agent waiting for approval', { timeout: 180_000 }, () => {
  it("the parent's card shows the inner call and the sub-agent's run; Approve resumes both", async () => {
    const { notes, options } = subAgentSetup();
    const server = await startTestServer(options);
    const chat = await postJson(`${server.url}/api/chat`, { prompt: 'delegate note milk' });
    expect(chat.body.status).toBe('awaiting_approval');
    const childRunId = chat.body.pendingApprovals[0].runId as string;
    browser = await openBrowser();
    const { page } = browser;
    // The sub-agent's own page while it waits: no buttons, a link to the run that decides.
    await page.goto(`${server.url}/#/runs/${childRunId}`);
    await page.locator('.sub-agent-of').waitFor(WAIT);
    expect(await page.locator('.approval button').count()).toBe(0);
    expect(await page.locator('.sub-agent-of a').getAttribute('href')).toBe(`#/runs/${chat.body.runId}`);
    await page.goto(`${server.url}/#/runs/${chat.body.runId}`);
    const card = page.locator('.approval[data-call-id="call-milk"]');
    await card.waitFor(WAIT);
    expect(await card.locator('strong').textContent()).toBe('write_note');
    expect(await card.locator('.argument dt').allTextContents()).toEqual(['text']);
    expect(await card.locator('.argument dd').allTextContents()).toEqual(['"milk"']);
    const link = card.locator('.sub-agent a');
    expect(await card.locator('.sub-agent').textContent()).toBe(`asked by sub-agent ${childRunId.slice(0, 8)}`);
    expect(await link.getAttribute('href')).toBe(`#/runs/${childRunId}`);
    await card.locator('button.approve').click();
    await page.locator('.notice', { hasText: 'Approved write_note: the run resumes.' }).waitFor(WAIT);
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    expect(notes.written).toEqual(['milk']);
    // The sub-agent's own page: its run, completed too, naming the run that started it.
    await page.goto(`${server.url}/#/runs/${childRunId}`);
    await page.locator('.sub-agent-of a').waitFor(WAIT);
    expect(await page.locator('.sub-agent-of').textContent()).toBe(
      `Sub-agent of run ${chat.body.runId.slice(0, 8)}: its calls are decided on that run, which resumes this one.`,
    );
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });
});
