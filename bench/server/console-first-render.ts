// Benchmark: the console's first render of a run with 2,000 events (issue 32: target below 500 ms here).
// Run: pnpm --filter @bridle/server build && pnpm bench console-first-render
// (bundled from sources with esbuild like every bench; it needs the built console in apps/server/dist/web
// and Debian's chromium at /usr/bin/chromium).
// A server (its own process) on 127.0.0.1 with a memory store holding one journaled run of 1,998 events (the console test's
// run: apps/server/test/big-run.ts). Each round opens a fresh browser context (cold cache) at the run's page
// and reads the page's own Performance marks:
//   first render  = `bridle:run-rendered` (the run's first screen drawn with its data: facts, prompt and
//                   answer, steering, waterfall; set after the paint), from navigation start;
//   whole page    = `bridle:run-complete` (the sections below the first screen drawn too);
//   API requested = when the page asked for the run (HTML and script before it);
//   API answered  = the `GET /api/runs/:id` resource's responseEnd, from navigation start;
//   after the API = first render minus API answered (parse, folding, Preact render, layout).
//   main thread CPU = from each round's Chromium trace (devtools.timeline): the CPU time of the renderer's
//                   main-thread tasks from navigation to the mark (thread time: what load does not inflate),
//                   and the time per task kind (script, style, layout, paint, GC).
//   Show all      = each list's "Show all" pressed in turn (Enter): the interaction's Event Timing duration
//                   (from the input to the next paint, as the browser's INP counts it; 16 ms at least).
// Reported: min and median over 9 rounds, the payload's size, the page's DOM size, and the load average.
// Then one round under the CPU profiler: its heaviest functions by self time (the profile is written to
// bench/results/ for DevTools). Nothing is asserted.
// Seen here (2 cores shared with other builds, 2026-12-07), the console before and after issue 32's work,
// run back to back at a load average of 15 to 20: first render min 492 / median 642 ms -> 271 / 475 ms
// (whole page 435 / 583 ms); main-thread CPU until then 100 / 109 ms -> 46 / 53 ms; DOM 2,911 -> 813
// elements; Show all 96-264 ms -> 56-112 ms. Alone at a load of 16: 247 / 399 ms. Wall times follow the
// load: the page waits for a core far longer than it computes.
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Playwright from '../../apps/server/node_modules/playwright-core';
import { createServer } from '../../apps/server/src/index';
import { bigRunEvents } from '../../apps/server/test/big-run';
import { openStore } from '../../packages/store/src/index';

/** Set in the child process that serves the run. */
const SERVER_CHILD = 'BRIDLE_BENCH_CONSOLE_SERVER';
if (process.env[SERVER_CHILD] === '1') await serve();

/** The child: a server with a memory store holding the run, until the parent disconnects. */
async function serve(): Promise<never> {
  const runId = 'bench-run-2000';
  const store = await openStore('memory:');
  await store.appendEvents(runId, bigRunEvents(runId));
  const server = createServer({ env: {}, logger: false, port: 0, store });
  process.send?.({ url: await server.listen() });
  await new Promise((resolve) => process.once('disconnect', resolve));
  await server.shutdown();
  process.exit(0);
}

const root = process.cwd();
const rounds = Number(process.argv[2] ?? 9);
const CHROMIUM = '/usr/bin/chromium';
const built = resolve(root, 'apps/server/dist/web');
if (!existsSync(join(built, 'index.html'))) {
  console.log(`${built}/index.html is missing: build the console first (pnpm --filter @bridle/server build).`);
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.log(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium).`);
  process.exit(1);
}
// Loaded at run time from the server package (a browser driver is not something to bundle).
const { chromium } = createRequire(join(root, 'apps/server/package.json'))('playwright-core') as typeof Playwright;

// The bundle runs from a temporary folder: the server finds the built console beside it (`./web/`).
const here = dirname(fileURLToPath(import.meta.url));
rmSync(join(here, 'web'), { force: true, recursive: true });
symlinkSync(built, join(here, 'web'), 'dir');

const runId = 'bench-run-2000';
const events = bigRunEvents(runId);
// The server runs in a child process of its own, as it would for a user: this process's event loop is
// busy with the browser's protocol traffic (traces, profiles) and must not delay the server's answers.
const server = fork(fileURLToPath(import.meta.url), [], {
  env: { ...process.env, [SERVER_CHILD]: '1' },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const url = await new Promise<string>((resolve, reject) => {
  server.once('message', (message) => resolve((message as { url: string }).url));
  server.once('exit', (code) => reject(new Error(`the bench's server exited (${code}) before listening`)));
});
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});

interface Round {
  firstRender: number;
  complete: number;
  apiAnswered: number;
  apiRequested: number;
  payloadBytes: number;
  domNodes: number;
  consoleErrors: string[];
  /** From the trace: the main thread's CPU time (ms) from navigation to the mark, and per task kind. */
  mainThreadCpu: number;
  kinds: Map<string, number>;
  /** Each "Show all" press's Event Timing duration (input to the next paint), by section. */
  showAll: Record<string, number>;
}

/** The sections with a "Show all" button on the 2,000-event run's page, in page order. */
const SECTIONS = ['.waterfall', '.tool-calls', '.events'];

/** The longest Event Timing entry of each interaction (the browser's own input-to-next-paint, as INP counts it). */
interface Interactions {
  __interactions: Map<number, number>;
}

/** Set before the page's own scripts: records {@link Interactions}. */
const RECORD_INTERACTIONS = `
  window.__interactions = new Map();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!entry.interactionId) continue;
      const known = window.__interactions.get(entry.interactionId) ?? 0;
      window.__interactions.set(entry.interactionId, Math.max(known, entry.duration));
    }
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
`;

/**
 * Waits until the page has set a Performance mark, told by a PerformanceObserver in the page: no polling,
 * which would put work of its own on the main thread being measured.
 */
async function waitForMark(page: Playwright.Page, name: string): Promise<void> {
  await page.evaluate(
    (mark) =>
      new Promise<void>((resolve) => {
        if (performance.getEntriesByName(mark).length > 0) return resolve();
        new PerformanceObserver((list, observer) => {
          if (list.getEntriesByName(mark).length === 0) return;
          observer.disconnect();
          resolve();
        }).observe({ type: 'mark' });
      }),
    name,
  );
}

async function measure(): Promise<Round> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(RECORD_INTERACTIONS);
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'blink.user_timing'] });
    await page.goto(`${url}/#/runs/${runId}`);
    await waitForMark(page, 'bridle:run-complete');
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
    const numbers = await page.evaluate((id) => {
      const mark = performance.getEntriesByName('bridle:run-rendered')[0] as PerformanceEntry;
      const api = performance
        .getEntriesByType('resource')
        .filter((entry) => entry.name.endsWith(`/api/runs/${id}`))
        .at(-1) as PerformanceResourceTiming;
      const complete = performance.getEntriesByName('bridle:run-complete')[0] as PerformanceEntry;
      return {
        firstRender: mark.startTime,
        complete: complete.startTime,
        apiAnswered: api.responseEnd,
        apiRequested: api.startTime,
        payloadBytes: api.decodedBodySize,
        domNodes: document.getElementsByTagName('*').length,
      };
    }, runId);
    const showAll: Record<string, number> = {};
    for (const [index, section] of SECTIONS.entries()) {
      // Pressed from the keyboard: a pointer's click can miss while rows below resize as they come into view.
      const button = page.locator(`${section} button.show-more`);
      await button.focus();
      await page.keyboard.press('Enter');
      await button.waitFor({ state: 'detached' });
      // The interaction's entry is reported after the paint that follows it (none under 16 ms).
      const seen = await page
        .waitForFunction((count) => (window as unknown as Interactions).__interactions.size > count, index, {
          polling: 50,
          timeout: 5_000,
        })
        .then(
          () => true,
          () => false,
        );
      showAll[section] = seen
        ? ((await page.evaluate(() =>
            [...(window as unknown as Interactions).__interactions.values()].at(-1),
          )) as number)
        : 16;
    }
    return { ...numbers, ...mainThread(trace.traceEvents), showAll, consoleErrors: errors };
  } finally {
    await context.close();
  }
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0] as number, median: sorted[Math.floor(sorted.length / 2)] as number };
};
const ms = (value: number) => `${Math.round(value)} ms`;
const line = (label: string, values: number[]) => {
  const { min, median } = stats(values);
  console.log(`${label.padEnd(40)} min ${ms(min).padStart(7)}, median ${ms(median).padStart(7)}`);
};

async function main(): Promise<void> {
  const loadBefore = loadavg();
  await measure(); // warm-up: the server's first read, the browser's first start
  const results: Round[] = [];
  for (let round = 0; round < rounds; round++) results.push(await measure());
  const loadAfter = loadavg();
  const sample = results[0] as Round;
  console.log(
    `run of ${events.length} events; GET /api/runs/:id payload ${(sample.payloadBytes / 1024).toFixed(0)} KiB`,
  );
  line(
    'first render, from navigation start',
    results.map((round) => round.firstRender),
  );
  line(
    '  API requested',
    results.map((round) => round.apiRequested),
  );
  line(
    '  API read (request to response end)',
    results.map((round) => round.apiAnswered - round.apiRequested),
  );
  line(
    "  after the API's answer",
    results.map((round) => round.firstRender - round.apiAnswered),
  );
  line(
    'whole page (the sections below too)',
    results.map((round) => round.complete),
  );
  line(
    'main thread CPU until the first render',
    results.map((round) => round.mainThreadCpu),
  );
  console.log('  by task kind (median; nested kinds are part of their parent):');
  const kinds = new Set(results.flatMap((round) => [...round.kinds.keys()]));
  const medians = [...kinds].map(
    (kind) => [kind, stats(results.map((round) => round.kinds.get(kind) ?? 0)).median] as const,
  );
  for (const [kind, median] of medians.sort((a, b) => b[1] - a[1])) {
    if (median >= 0.5) console.log(`    ${kind.padEnd(24)} ${median.toFixed(1)} ms`);
  }
  for (const section of SECTIONS) {
    line(
      `"Show all" in ${section} (input to next paint)`,
      results.map((round) => round.showAll[section] as number),
    );
  }
  console.log(
    `DOM elements of the whole page: ${sample.domNodes}; console errors: ${results.flatMap((round) => round.consoleErrors).length}`,
  );
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  console.log(
    `${rounds} rounds, ${cpus().length} cores, load average before ${load(loadBefore)}, after ${load(loadAfter)}`,
  );
}

/** One more round under the CPU profiler: which functions the time goes to. */
async function profile(): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const session = await context.newCDPSession(page);
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 200 });
  await session.send('Profiler.start');
  await page.goto(`${url}/#/runs/${runId}`);
  await waitForMark(page, 'bridle:run-rendered');
  const { profile: cpu } = (await session.send('Profiler.stop')) as { profile: CpuProfile };
  await context.close();
  const results = join(root, 'bench/results');
  mkdirSync(results, { recursive: true });
  writeFileSync(join(results, 'console-first-render.cpuprofile'), JSON.stringify(cpu));
  console.log('\nprofiled round (bench/results/console-first-render.cpuprofile), heaviest functions by self time:');
  for (const [name, total] of selfTimes(cpu)) console.log(`  ${total.toFixed(1).padStart(7)} ms  ${name}`);
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tdur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

const KINDS = [
  'ParseHTML',
  'EvaluateScript',
  'v8.compile',
  'FunctionCall',
  'TimerFire',
  'FireAnimationFrame',
  'EventDispatch',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'MajorGC',
  'MinorGC',
  'ResourceReceivedData',
  'ParseAuthorStyleSheet',
];

/**
 * The renderer's main thread from the page's navigation to its first-render mark: CPU time of its top-level
 * tasks (`tdur`: thread time, so waiting for a core under load is left out) and wall time per task kind.
 */
function mainThread(traceEvents: TraceEvent[]): { mainThreadCpu: number; kinds: Map<string, number> } {
  const mark = traceEvents.find((event) => event.name === 'bridle:run-rendered');
  const main = traceEvents.find(
    (event) => event.pid === mark?.pid && event.name === 'thread_name' && event.args?.name === 'CrRendererMain',
  );
  const start = traceEvents.find((event) => event.pid === mark?.pid && event.name === 'navigationStart')?.ts ?? 0;
  const kinds = new Map<string, number>();
  let mainThreadCpu = 0;
  if (!mark || !main) return { mainThreadCpu: Number.NaN, kinds };
  for (const event of traceEvents) {
    if (event.pid !== main.pid || event.tid !== main.tid || event.ph !== 'X' || !event.dur) continue;
    if (event.ts < start || event.ts > mark.ts) continue;
    if (event.name === 'ThreadControllerImpl::RunTask') mainThreadCpu += (event.tdur ?? 0) / 1000;
    if (KINDS.includes(event.name)) kinds.set(event.name, (kinds.get(event.name) ?? 0) + event.dur / 1000);
  }
  return { mainThreadCpu, kinds };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The 15 functions with the most self time (ms), named with their script and line. */
function selfTimes(cpu: CpuProfile): [string, number][] {
  const byId = new Map(cpu.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  cpu.samples.forEach((id, index) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    const where = frame.url ? ` ${frame.url.split('/').at(-1)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    totals.set(name, (totals.get(name) ?? 0) + (cpu.timeDeltas[index] ?? 0) / 1000);
  });
  return [...totals]
    .filter(([name]) => name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15);
}

await main();
await profile();
await browser.close();
server.disconnect();
await new Promise((resolve) => server.once('exit', resolve));
rmSync(join(here, 'web'), { force: true, recursive: true });
