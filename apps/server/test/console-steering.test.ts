// The run console in chromium (issue 32): who steered a run and who cancelled it, and when, with the
// steering message shown as a user message; who decided each approval and when.
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectorRoot } from '../src/routes/web-routes';
import { seriousViolations } from './console-browser';
import { noteModel, noteTool } from './durable-helpers';
import { deferred, gatedModel, postJson, startTestServer } from './helpers';
import { browserUnavailable, type InspectorBrowser, openBrowser, outsideRequests } from './inspector-browser';

const skip = browserUnavailable(inspectorRoot() !== undefined) !== undefined;
/** Generous: the machine may be loaded; nothing here measures time. */
const WAIT = { timeout: 60_000 };

let browser: InspectorBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

type Event = { type: string; timestamp: string; callId?: string };

async function runningRunId(url: string): Promise<string> {
  const page = (await (await fetch(`${url}/api/runs?status=running`)).json()) as { runs: { runId: string }[] };
  return page.runs[0]?.runId as string;
}

async function eventsOf(url: string, runId: string): Promise<Event[]> {
  return ((await (await fetch(`${url}/api/runs/${runId}`)).json()) as { events: Event[] }).events;
}

describe.skipIf(skip)('run console: steering, cancel and decisions', { timeout: 240_000 }, () => {
  it('shows who steered the run (the message as a user message) and who cancelled one, and when', async () => {
    const store = await openStore('memory:');
    // One server per gated model, on one store: the console reads both runs from either.
    const steered = gatedModel();
    const server = await startTestServer({ model: steered.model, store });
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    await steered.started;
    const steeredId = await runningRunId(server.url);
    const input = await postJson(`${server.url}/api/runs/${steeredId}/input`, { content: 'Reply **in French**' });
    expect(input.status).toBe(202);
    steered.release();
    expect((await chat).body).toMatchObject({ status: 'completed', steps: 2 });

    const cancelled = gatedModel();
    const other = await startTestServer({ model: cancelled.model, store });
    const longJob = postJson(`${other.url}/api/chat`, { prompt: 'long job' });
    await cancelled.started;
    const cancelledId = await runningRunId(other.url);
    expect((await postJson(`${other.url}/api/runs/${cancelledId}/cancel`, {})).status).toBe(202);
    expect((await longJob).body).toMatchObject({ status: 'aborted' });

    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${steeredId}`);
    const message = page.locator('.steering .steer-input');
    await message.locator('.markdown strong').waitFor(WAIT);
    expect(await message.locator('.markdown').innerHTML()).toBe('<p>Reply <strong>in French</strong></p>\n');
    expect(await message.locator('.steer-by').textContent()).toBe('api');
    const inputEvent = (await eventsOf(server.url, steeredId)).find((event) => event.type === 'input') as Event;
    expect(await message.locator('time').getAttribute('datetime')).toBe(inputEvent.timestamp);
    expect(await message.locator('.message-role').textContent()).toMatch(
      /^Steered by api · .+ · joined before step 2$/,
    );
    expect(await page.locator('.steering .steer-cancel').count()).toBe(0);
    // The waterfall marks the moment between the two model calls.
    expect(await page.locator('.waterfall .bar-label').allTextContents()).toEqual([
      'model · step 1',
      'steered by api',
      'model · step 2',
    ]);
    expect(await page.locator('.fact', { hasText: 'cancelled by' }).count()).toBe(0);
    expect(await page.locator('.entry', { hasText: 'steered by api' }).locator('.entry-body').textContent()).toBe(
      'Reply **in French**',
    );
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${server.url}/#/runs/${cancelledId}`);
    const cancel = page.locator('.steering .steer-cancel');
    await cancel.waitFor(WAIT);
    expect(await cancel.locator('.steer-by').textContent()).toBe('api');
    const end = (await eventsOf(server.url, cancelledId)).at(-1) as Event;
    expect(end.type).toBe('run_end');
    expect(await cancel.locator('time').getAttribute('datetime')).toBe(end.timestamp);
    expect(await page.locator('.steering .steer-input').count()).toBe(0);
    expect(await page.locator('.waterfall .bar-label').allTextContents()).toEqual([
      'model · step 1',
      'cancelled by api',
    ]);
    expect(await page.locator('.run h2 .status').textContent()).toBe('aborted');
    expect(await page.locator('.fact', { hasText: 'cancelled by' }).locator('dd').textContent()).toBe('api');
    expect(
      await page.locator('.entry-run', { hasText: 'run ended · aborted' }).locator('.entry-detail').textContent(),
    ).toMatch(/^cancelled by api · /);
    expect(await seriousViolations(page)).toEqual([]);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('a live run page shows the steering message once the run takes it, without a reload', async () => {
    const gated = gatedModel();
    const server = await startTestServer({ model: gated.model });
    const chat = postJson(`${server.url}/api/chat`, { prompt: 'hello' });
    await gated.started;
    const runId = await runningRunId(server.url);
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${runId}`);
    await page.locator('.run h2 .live').waitFor(WAIT);
    expect(await page.locator('.steering').count()).toBe(0);
    expect((await postJson(`${server.url}/api/runs/${runId}/input`, { content: 'and *briefly*' })).status).toBe(202);
    gated.release();
    expect((await chat).body).toMatchObject({ status: 'completed', steps: 2 });
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    const message = page.locator('.steering .steer-input');
    expect(await message.locator('.markdown em').textContent()).toBe('briefly');
    expect(await message.locator('.message-role').textContent()).toMatch(
      /^Steered by api · .+ · joined before step 2$/,
    );
    expect(await page.locator('.waterfall .bar-label').allTextContents()).toEqual([
      'model · step 1',
      'steered by api',
      'model · step 2',
    ]);
    expect(browser.consoleErrors).toEqual([]);
  });

  it('shows who decided each approval and when: approved from the card, denied through the API', async () => {
    const notes = noteTool();
    const server = await startTestServer({ model: noteModel(), tools: [notes.tool] });
    const approved = await postJson(`${server.url}/api/chat`, { prompt: 'note one' });
    const denied = await postJson(`${server.url}/api/chat`, { prompt: 'note two' });
    expect([approved.body.status, denied.body.status]).toEqual(['awaiting_approval', 'awaiting_approval']);
    const deny = await postJson(`${server.url}/api/runs/${denied.body.runId}/approvals`, {
      approvals: { 'call-two': false },
    });
    expect(deny.status).toBe(200);

    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${approved.body.runId}`);
    await page.locator('.approval[data-call-id="call-one"] button.approve').click();
    await page.locator('.run h2 .status', { hasText: 'completed' }).waitFor(WAIT);
    const yes = page.locator('.tool-call[data-call-id="call-one"] .decision');
    await yes.waitFor(WAIT);
    const decided = (await eventsOf(server.url, approved.body.runId)).find(
      (event) => event.type === 'approval_decided',
    ) as Event;
    expect(await yes.getAttribute('data-decided-by')).toBe('person');
    expect(await yes.textContent()).toMatch(/^Approved by a client without an API key \(person\) · .+$/);
    expect(await yes.locator('time').getAttribute('datetime')).toBe(decided.timestamp);
    expect(notes.written).toEqual(['one']);
    // The waterfall's wait for approval says how it ended.
    expect(await page.locator('.waterfall .bar-approval .bar-label').textContent()).toBe(
      'waiting for approval · write_note · approved by a client without an API key',
    );
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${server.url}/#/runs/${denied.body.runId}`);
    const no = page.locator('.tool-call[data-call-id="call-two"] .decision');
    await no.waitFor(WAIT);
    expect(await no.getAttribute('class')).toBe('decision decision-denied');
    expect(await no.textContent()).toMatch(/^Denied by a client without an API key \(person\) · .+$/);
    expect(
      await page.locator('.entry-run', { hasText: 'denied · call-two' }).locator('.entry-detail').textContent(),
    ).toBe('Denied by a client without an API key (person)');
    expect(notes.written).toEqual(['one']);
    expect(browser.consoleErrors).toEqual([]);
    expect(outsideRequests(browser.requests)).toEqual([]);
  });

  it('Approve answers at once and the page follows the resumed run live; leaving the page does not stop it', async () => {
    const notes = noteTool();
    const answer = deferred();
    const model = scriptedModel(
      [
        { content: '', toolCalls: [{ id: 'call-plum', name: 'write_note', arguments: { text: 'plum' } }] },
        async () => {
          await answer.promise;
          return { content: 'noted plum' };
        },
      ],
      { stream: true },
    );
    const server = await startTestServer({ model, tools: [notes.tool] });
    const paused = await postJson(`${server.url}/api/chat`, { prompt: 'note plum' });
    expect(paused.body.status).toBe('awaiting_approval');
    browser = await openBrowser();
    const { page } = browser;
    await page.goto(`${server.url}/#/runs/${paused.body.runId}`);
    await page.locator('.approval[data-call-id="call-plum"] button.approve').click();
    // The model's answer is still held back: the notice and the live run show while the run goes on.
    await page.locator('.notice', { hasText: 'Approved write_note: the run resumes.' }).waitFor(WAIT);
    await page.locator('.run h2 .live').waitFor(WAIT);
    expect(notes.written).toEqual(['plum']);
    await page.goto('about:blank');
    answer.resolve();
    await expect
      .poll(async () => (await eventsOf(server.url, paused.body.runId)).at(-1)?.type, { timeout: 20_000 })
      .toBe('run_end');
    const run = (await (await fetch(`${server.url}/api/runs/${paused.body.runId}`)).json()) as { status: string };
    expect(run.status).toBe('completed');
    expect(browser.consoleErrors).toEqual([]);
  });
});
