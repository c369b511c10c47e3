// The run console on a run of 2,000 events (issue 32), in chromium: the first screen draws a part of each
// long list and every row is one "Show all" away. Nothing here measures time: the first render is measured
// by bench/server/console-first-render.ts.
import { openStore } from '@bridle/store';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { bigRunEvents } from './big-run';
import { seriousViolations } from './console-browser';
import { echoModel, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

/**
 * Presses a section's "Show all" button from the keyboard, checking what it says first (a pointer's click
 * can miss while the rows below resize as they come into view: they are laid out only near the screen).
 */
async function showAll(page: Page, section: string, text: string) {
  const button = page.locator(`${section} button.show-more`);
  expect(await button.textContent()).toBe(text);
  await button.focus();
  await page.keyboard.press('Enter');
  await button.waitFor({ state: 'detached', ...WAIT });
}

describe.skipIf(skip)('run console: a run of 2,000 events', { timeout: 240_000 }, () => {
  it('draws the first rows of each list; Show all reaches every row, the last one scrolled into view', async () => {
    const store = await openStore('memory:');
    const runId = 'big-run-2000';
    const events = bigRunEvents(runId);
    await store.appendEvents(runId, events);
    expect(events).toHaveLength(1998);
    const steps = 499;
    const server = await startTestServer({ model: echoModel(), store });
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.locator('.answer .markdown strong').waitFor(WAIT);
    expect(await page.locator('.answer .markdown').textContent()).toBe('All done.\n');
    // The first screen: a part of each list.
    expect(await page.locator('.bar-row').count()).toBe(50);
    expect(await page.locator('.tool-call').count()).toBe(25);
    expect(await page.locator('.entry').count()).toBe(50);
    expect(await seriousViolations(page)).toEqual([]);

    await showAll(page, '.waterfall', `Show all ${2 * steps} rows (${2 * steps - 50} more)`);
    expect(await page.locator('.bar-row').count()).toBe(2 * steps);
    const lastBar = page.locator('.bar-row').last();
    await lastBar.scrollIntoViewIfNeeded();
    expect(await lastBar.locator('.bar-label').textContent()).toBe('tool lookup');
    expect(await lastBar.isVisible()).toBe(true);

    await showAll(page, '.tool-calls', `Show all ${steps} tool calls (${steps - 25} more)`);
    const lastCall = page.locator(`.tool-call[data-call-id="call-${steps}"]`);
    await lastCall.scrollIntoViewIfNeeded();
    expect(await page.locator('.tool-call').count()).toBe(steps);
    expect(await lastCall.locator('.tool-head').textContent()).toBe(`lookup step ${steps} · 8 ms`);
    expect(await lastCall.isVisible()).toBe(true);

    await showAll(page, '.events', 'Show all 1,000 events (950 more)');
    expect(await page.locator('.entry').count()).toBe(2 * steps + 2);
    const lastEntry = page.locator('.entry').last();
    await lastEntry.scrollIntoViewIfNeeded();
    expect(await lastEntry.locator('.entry-title').textContent()).toBe('run ended · completed');
    expect(await lastEntry.isVisible()).toBe(true);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });
});
