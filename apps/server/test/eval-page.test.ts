import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exactAnswer, runEval, toolTrajectory } from '@bridle/evals';
import type { ModelRequest } from '@bridle/protocol';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

const lookup = {
  name: 'lookup',
  description: 'Looks a key up',
  parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
  readOnly: true,
  execute: ({ key }: { key: string }) => `value of ${key}`,
};

/** Answers `answer` to the sum; looks `a` up first when `looks`. */
function model(answer: string, looks: boolean) {
  return scriptedModel((request: ModelRequest) => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { content: `found ${last.content}` };
    const first = request.messages[0];
    if (looks && first?.role === 'user' && first.content === 'look a up')
      return { content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: { key: 'a' } }] };
    return { content: answer };
  });
}

const dataset = [
  { id: 'sum', input: 'What is 2 + 2?', expected: { answer: '4' } },
  { id: 'look', input: 'look a up', expected: { tools: [{ name: 'lookup', arguments: { key: 'a' } }] } },
];

describe.skipIf(skip)('eval page in chromium', { timeout: 180_000 }, () => {
  it('shows the matrix and the cases of a result, drills down into a run page, and compares two results', async () => {
    const store = await openStore('memory:');
    const server = await startTestServer({ store, model: model('4', true), tools: [lookup] });
    const folder = await mkdtemp(join(tmpdir(), 'bridle-eval-page-'));
    const scorers = [exactAnswer(), toolTrajectory()];
    const good = await runEval({
      dataset,
      variants: [{ name: 'm', agent: { model: model('4', true), tools: [lookup] } }],
      scorers,
      store,
      evalId: 'before',
    });
    const worse = await runEval({
      dataset,
      variants: [{ name: 'm', agent: { model: model('<b>5</b>', false), tools: [lookup] } }],
      scorers,
      store,
      evalId: 'after',
    });
    writeFileSync(join(folder, 'before.json'), JSON.stringify(good));
    writeFileSync(join(folder, 'after.json'), JSON.stringify(worse));
    writeFileSync(join(folder, 'not-a-result.json'), '{"hello": 1}');

    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/`);
    await page.locator('nav a', { hasText: 'Evals' }).click();
    const first = page.locator('input[name="eval-a"]');
    await first.waitFor(WAIT);
    await first.setInputFiles(join(folder, 'not-a-result.json'));
    await page
      .locator('.error', { hasText: 'not-a-result.json is not an eval result (bridle eval --out writes one).' })
      .waitFor(WAIT);

    await first.setInputFiles(join(folder, 'after.json'));
    const row = page.locator('.eval-matrix tr[data-variant="m"]');
    await row.waitFor(WAIT);
    expect(await row.locator('td[data-scorer="exactAnswer"]').textContent()).toBe('0/1 · 0% · 0.00');
    expect(await row.locator('td[data-scorer="toolTrajectory"]').textContent()).toBe('0/1 · 0% · 0.00');
    const sum = page.locator('.eval-cases tr[data-case="sum"]');
    // The model's text is shown as text, never as markup.
    expect(await sum.locator('.score-fail').textContent()).toBe('✗ exactAnswer 0.00: the answer "<b>5</b>" is not "4"');
    expect(await page.locator('.eval-cases b').count()).toBe(0);

    await page.locator('input[name="eval-b"]').setInputFiles(join(folder, 'before.json'));
    await page.locator('.eval-comparison tr').first().waitFor(WAIT);
    expect(await page.locator('.evals h3', { hasText: 'Compared with' }).textContent()).toBe(
      'Compared with before: 2 better, 0 worse',
    );
    expect(await page.locator('.eval-comparison tr').allTextContents()).toEqual([
      'betterlooktoolTrajectory 0.00 → 1.00: the 1 expected tool calls, in ordereval.after.1.look → eval.before.1.look',
      'bettersumexactAnswer 0.00 → 1.00: the answer is "4"eval.after.1.sum → eval.before.1.sum',
    ]);

    // Drill down: the case's run page, from the same store.
    await page.locator('.eval-cases tr[data-case="look"] a').click();
    await page.waitForURL(/#\/runs\/eval\.after\.1\.look$/);
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
    await store.close();
  });
});
