// Type-checks Bridle as a user's project meets it: packs every workspace package (`pnpm pack`, as published),
// installs the tarballs with npm into temp consumer projects (third-party dependencies from the npm cache or
// registry; install scripts off, types need no native build) and runs `tsc` with `strict` and WITHOUT
// `skipLibCheck` on a small file that uses each package's main API, so every published .d.ts (and what it
// imports) is checked. Two consumers:
//   - "minimal": @bridle/core, events, protocol, registry, openai, testing only, without @opentelemetry/api
//     installed (it is an optional peer of @bridle/events: its types must not need it);
//   - "full": every package, @opentelemetry/api, zod; a plain-object tool whose `execute` arguments are typed,
//     defineTool with zod, otelSink with a real Tracer.
// `// @ts-expect-error` lines make sure argument types are really checked (an `any` would pass everything).
// Run after a build: `pnpm check:packages` runs it. Usage: node scripts/consumer-typecheck.mjs [--keep]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const rootPackage = readJson(path.join(root, 'package.json'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-consumer-'));

/** Exact versions the consumers install beside the tarballs (the repository's own pins). */
const pins = {
  typescript: rootPackage.devDependencies.typescript,
  '@types/node': rootPackage.devDependencies['@types/node'],
  zod: rootPackage.devDependencies.zod,
  '@opentelemetry/api': readJson(path.join(root, 'packages/events/package.json')).devDependencies['@opentelemetry/api'],
};

/** The workspace packages by name: `{ name: manifest }`. */
const manifests = Object.fromEntries(
  ['packages', 'apps'].flatMap((group) =>
    fs
      .readdirSync(path.join(root, group))
      .map((name) => path.join(root, group, name, 'package.json'))
      .filter((file) => fs.existsSync(file))
      .map((file) => readJson(file))
      .map((manifest) => [manifest.name, manifest]),
  ),
);

/** `names` and every workspace package they depend on (npm takes those from the consumer's own tarballs too). */
function withWorkspaceDependencies(names) {
  const all = new Set();
  const visit = (name) => {
    if (all.has(name)) return;
    all.add(name);
    for (const dependency of Object.keys(manifests[name]?.dependencies ?? {}))
      if (manifests[dependency] !== undefined) visit(dependency);
  };
  for (const name of names) visit(name);
  return [...all];
}

/** Packs every workspace package; returns `{ name: tarball path }`. */
function packAll() {
  const out = path.join(work, 'tarballs');
  fs.mkdirSync(out);
  const tarballs = {};
  for (const group of ['packages', 'apps']) {
    for (const name of fs.readdirSync(path.join(root, group))) {
      const dir = path.join(root, group, name);
      if (!fs.existsSync(path.join(dir, 'package.json'))) continue;
      const manifest = readJson(path.join(dir, 'package.json'));
      if (manifest.private) continue;
      if (!fs.existsSync(path.join(dir, 'dist'))) throw new Error(`${manifest.name} has no dist/: build first.`);
      const before = new Set(fs.readdirSync(out));
      execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'pipe' });
      const tarball = fs.readdirSync(out).find((file) => !before.has(file));
      tarballs[manifest.name] = path.join(out, tarball);
    }
  }
  return tarballs;
}

const MINIMAL = `import { Agent, runAgent } from '@bridle/core';
import { type EventObserver, jsonlSink, type OtelSinkOptions, otelSink } from '@bridle/events';
import { openai } from '@bridle/openai';
import { ConfigError, type Tool } from '@bridle/protocol';
import { defineTool } from '@bridle/registry';
import { scriptedModel } from '@bridle/testing';

// A plain-object tool: \`execute\` gets the type of its arguments.
const add: Tool<{ a: number; b: number }, number> = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: ({ a, b }) => a + b,
};
const echo = defineTool<{ text: string }, string>({
  name: 'echo',
  description: 'Says it back',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  // @ts-expect-error text is a string, not a number
  execute: ({ text }) => text.toFixed(),
});
const model = scriptedModel([{ content: 'hi' }]);
const observers: EventObserver[] = [jsonlSink('run.jsonl').onEvent];
const result = await runAgent({ model, tools: [add, echo], prompt: 'Add 1 and 2', onEvent: observers });
const answer: string | undefined = result.answer;
const agent = new Agent({ model: openai({ model: 'gpt-4o-mini', apiKey: 'k' }), tools: [add] });
// The OTel sink's types need no @opentelemetry/api (not installed here).
const sinkOptions: OtelSinkOptions | undefined = undefined;
const sink: typeof otelSink = otelSink;
export { agent, answer, ConfigError, sink, sinkOptions };
`;

const FULL = `import { trace } from '@opentelemetry/api';
import { a2aAgentTool } from '@bridle/a2a';
import { anthropic } from '@bridle/anthropic';
import { runBatch } from '@bridle/batch';
import { estimateTokens } from '@bridle/context';
import { Agent, agentTool, runAgent, streamAgent } from '@bridle/core';
import { otelSink, type RunEvent } from '@bridle/events';
import { exactAnswer, runEval, type Scorer } from '@bridle/evals';
import { parseMcpConfig } from '@bridle/mcp';
import { fallback, resolveModel } from '@bridle/models';
import { openai, openaiCompatible } from '@bridle/openai';
import { readOtelEnv } from '@bridle/otel';
import type { Model, Tool, ToolContext } from '@bridle/protocol';
import { parseRateLimit } from '@bridle/queue';
import { defineTool } from '@bridle/registry';
import { openBubblewrapSandbox, type ShellResult, shellTool } from '@bridle/sandbox';
import { createServer } from '@bridle/server';
import { assistantSkill } from '@bridle/skills';
import { openStore } from '@bridle/store';
import { scriptedModel } from '@bridle/testing';
import { calculatorTool, clockTool } from '@bridle/tools';
import { Workspace, workspaceTools } from '@bridle/workspace-tools';
import { main } from 'bridle';
import { z } from 'zod';

// A plain-object tool, written inline: \`execute\` gets the type of its arguments.
const weather: Tool<{ city: string }, string> = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: async ({ city }, context: ToolContext) => (context.signal.aborted ? '' : \`Sunny in \${city.toUpperCase()}\`),
};
// @ts-expect-error city must be a string
void weather.execute({ city: 1 }, {} as ToolContext);
const zodTool = defineTool({
  name: 'shout',
  description: 'Upper-cases text',
  parameters: z.object({ text: z.string(), times: z.number().int() }),
  execute: ({ text, times }) => text.toUpperCase().repeat(times),
});
// @ts-expect-error times must be a number
void zodTool.execute({ text: 'a', times: 'x' }, {} as ToolContext);

const model: Model = fallback([
  resolveModel('openai:gpt-4o-mini', { env: { OPENAI_API_KEY: 'k' } }),
  anthropic({ model: 'claude-sonnet-4-6', apiKey: 'k' }),
  openaiCompatible({ baseURL: 'http://localhost:11434/v1', model: 'llama3.2' }),
  openai({ model: 'gpt-4o-mini', apiKey: 'k' }),
]);
const sink = otelSink({ tracer: trace.getTracer('consumer'), captureContent: false });
const events: RunEvent[] = [];
const result = await runAgent({
  model: scriptedModel([{ content: 'done' }]),
  tools: [weather, zodTool, calculatorTool(), clockTool()],
  prompt: 'hi',
  onEvent: [sink.onEvent, (event) => events.push(event)],
});
const child = agentTool(new Agent({ model, tools: [weather] }), { name: 'helper', description: 'Helps' });
const stream = streamAgent({ model, tools: [child], prompt: 'hi' });
for await (const text of stream.text) void text;
const workspace = await Workspace.open('.');
const tools: readonly Tool[] = workspaceTools(workspace);
const skill = assistantSkill();
const store = await openStore('memory:');
const results = runBatch([{ id: 'a', prompt: 'hi' }], { run: async () => ({ status: 'completed', answer: 'x' }) });
const exitCode: Promise<number> = main(['--help']);
const shell = async (): Promise<Tool<{ command: string }, ShellResult>> => shellTool(await openBubblewrapSandbox({ root: '.' }));
const remote: Tool<{ message: string }, string> = a2aAgentTool('http://127.0.0.1:8080', { timeoutMs: 5000 });
// @ts-expect-error timeoutMs is a number of milliseconds
a2aAgentTool('http://127.0.0.1:8080', { timeoutMs: '5s' });
const polite: Scorer = { name: 'polite', score: (run) => ({ score: run.answer?.includes('please') ? 1 : 0, reason: 'asks nicely' }) };
// @ts-expect-error a score is a number from 0 to 1
const wrong: Scorer = { name: 'wrong', score: () => ({ score: 'high', reason: 'x' }) };
const evaluated = runEval({ dataset: [{ input: 'hi', expected: { answer: 'x' } }], variants: [{ name: 'm', agent: { model } }], scorers: [exactAnswer(), polite] });
export {
  createServer, estimateTokens, evaluated, exitCode, parseMcpConfig, parseRateLimit, readOtelEnv, remote, result, results,
  shell, skill, store, tools, wrong,
};
`;

/** Writes a consumer project with `dependencies`, installs it with npm and type-checks `index.ts`. */
function consumer(name, dependencies, source) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  const tsconfig = {
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: ['node'],
      noEmit: true,
    },
    files: ['index.ts'],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'index.ts'), source);
  try {
    execFileSync(
      'npm',
      ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
    );
  } catch (error) {
    throw new Error(`npm install of the ${name} consumer failed:\n${error.stderr ?? error.message}`);
  }
  try {
    // Deliberately no --skipLibCheck: every .d.ts the consumer loads is checked, ours and what they import.
    execFileSync(path.join(dir, 'node_modules', '.bin', 'tsc'), ['-p', dir], { cwd: dir, encoding: 'utf8' });
    console.log(`ok    ${name}: tsc --strict without skipLibCheck (${Object.keys(dependencies).length} dependencies)`);
    return true;
  } catch (error) {
    console.log(`FAIL  ${name}: tsc --strict without skipLibCheck\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    return false;
  }
}

let ok = false;
try {
  const tarballs = packAll();
  const file = (names) => Object.fromEntries(names.map((name) => [name, `file:${tarballs[name]}`]));
  const minimal = consumer(
    'minimal',
    {
      ...file(
        withWorkspaceDependencies([
          '@bridle/core',
          '@bridle/events',
          '@bridle/protocol',
          '@bridle/registry',
          '@bridle/openai',
          '@bridle/testing',
        ]),
      ),
      typescript: pins.typescript,
      '@types/node': pins['@types/node'],
    },
    MINIMAL,
  );
  if (fs.existsSync(path.join(work, 'minimal', 'node_modules', '@opentelemetry', 'api')))
    throw new Error('the minimal consumer has @opentelemetry/api installed: it cannot show the types work without it');
  const full = consumer('full', { ...file(Object.keys(tarballs)), ...pins }, FULL);
  ok = minimal && full;
} finally {
  if (keep) console.log(`kept ${work}`);
  else fs.rmSync(work, { recursive: true, force: true });
}
if (!ok) {
  console.error('\nA consumer with strict TypeScript and no skipLibCheck fails on the published types (above).');
  process.exit(1);
}
console.log('\nthe published types pass a strict consumer without skipLibCheck');
