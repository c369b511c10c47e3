import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. Without chromium they skip with one
 * loud line; under CI=true they fail instead.
 */
export function browserUnavailable(inspectorBuilt: boolean): string | undefined {
  const reason = !existsSync(CHROMIUM)
    ? `${CHROMIUM} is missing (install it with \`sudo apt-get install -y chromium\`)`
    : !inspectorBuilt
      ? 'the inspector is not built (run `pnpm --filter @bridle/server build`)'
      : undefined;
  if (reason === undefined) return undefined;
  if (process.env.CI === 'true') throw new Error(`Inspector browser tests cannot run under CI: ${reason}.`);
  console.warn(`\n*** SKIPPING the inspector browser tests: ${reason}. ***\n`);
  return reason;
}

/** A page of a fresh headless chromium that records console errors and every request's URL. */
export interface InspectorBrowser {
  page: Page;
  context: BrowserContext;
  consoleErrors: string[];
  requests: string[];
  close(): Promise<void>;
}

/** Headless chromium with a fresh user data dir and no background traffic. */
export async function openBrowser(): Promise<InspectorBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'bridle-inspector-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 900 },
  });
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(`page error: ${error.message}`));
  return {
    page,
    context,
    consoleErrors,
    requests,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Requests that left 127.0.0.1 (data: URLs are in-page). */
export function outsideRequests(requests: readonly string[]): string[] {
  return requests.filter((url) => !url.startsWith('data:') && new URL(url).hostname !== '127.0.0.1');
}
