// One-off scaffold of the workspace packages (kept for adding packages later: node scripts/scaffold.mjs).
import fs from 'node:fs';
import path from 'node:path';

const W = 'workspace:*';
const pkgs = {
  'packages/protocol': {
    name: '@bridle/protocol',
    description:
      'Bridle protocol: message, tool and model types, the BridleError family, transcript and response validation',
    deps: {},
  },
  'packages/registry': {
    name: '@bridle/registry',
    description: 'Bridle tool registry: defineTool, ToolRegistry and JSON Schema / Standard Schema validation',
    deps: { '@bridle/protocol': W, ajv: '8.20.0', '@standard-schema/spec': '1.1.0' },
    dev: { zod: '4.6.7' },
  },
  'packages/context': {
    name: '@bridle/context',
    description: 'Bridle context management: tool result bounding, context selection, token budgets, compaction',
    deps: { '@bridle/protocol': W },
    dev: { '@bridle/testing': W },
  },
  'packages/events': {
    name: '@bridle/events',
    description: 'Bridle run events: the event union, emitter, JSONL and console sinks, summaries',
    deps: { '@bridle/protocol': W },
  },
  'packages/core': {
    name: '@bridle/core',
    description: 'Bridle agent loop: runAgent, Agent, limits, retries, approval, structured output',
    deps: { '@bridle/protocol': W, '@bridle/registry': W, '@bridle/context': W, '@bridle/events': W },
    dev: { '@bridle/testing': W, zod: '4.6.7' },
  },
  'packages/workspace-tools': {
    name: '@bridle/workspace-tools',
    description: 'Bridle workspace tools: a path-jailed Workspace, file tools and a preset command tool',
    deps: { '@bridle/protocol': W, picomatch: '4.0.7' },
    dev: { '@types/picomatch': '4.0.3' },
  },
  'packages/sandbox': {
    name: '@bridle/sandbox',
    description:
      'Bridle sandbox: run commands in an OS sandbox (bubblewrap on Linux) and a shell tool that runs inside it',
    deps: { '@bridle/protocol': W },
    dev: { '@bridle/core': W, '@bridle/testing': W, '@bridle/workspace-tools': W },
  },
  'packages/a2a': {
    name: '@bridle/a2a',
    description: 'Bridle A2A: a remote Agent2Agent (A2A) agent as a tool of a Bridle agent',
    deps: { '@a2a-js/sdk': '1.3.0', '@bridle/protocol': W },
    dev: { '@bridle/core': W, '@bridle/testing': W, '@types/express': '5.0.6', express: '5.3.0' },
  },
  'packages/tools': {
    name: '@bridle/tools',
    description: 'Bridle tools: clock, calculator (no eval), HTTP fetch with an SSRF guard',
    deps: { '@bridle/protocol': W, 'ipaddr.js': '2.5.0' },
  },
  'packages/openai': {
    name: '@bridle/openai',
    description:
      'Bridle model adapter over the official openai SDK (Responses and Chat Completions, any compatible server)',
    deps: { '@bridle/protocol': W, openai: '6.49.0' },
    dev: { '@bridle/testing': W, '@bridle/core': W },
  },
  'packages/anthropic': {
    name: '@bridle/anthropic',
    description: 'Bridle model adapter over the official @anthropic-ai/sdk',
    deps: { '@bridle/protocol': W, '@anthropic-ai/sdk': '1.14.0' },
    dev: { '@bridle/testing': W, '@bridle/core': W },
  },
  'packages/testing': {
    name: '@bridle/testing',
    description: 'Bridle test kit: scripted and faulty models, seeded fuzz helpers, fake OpenAI and Anthropic servers',
    deps: { '@bridle/protocol': W },
  },
  'packages/skills': {
    name: '@bridle/skills',
    description: 'Bridle skills: instructions + tools bundles, SKILL.md folders, built-in skills',
    deps: {
      '@bridle/protocol': W,
      '@bridle/registry': W,
      '@bridle/core': W,
      '@bridle/tools': W,
      '@bridle/workspace-tools': W,
      yaml: '2.9.1',
    },
    dev: { '@bridle/testing': W },
  },
  'packages/batch': {
    name: '@bridle/batch',
    description: 'Bridle batch runner: many independent agent runs with concurrency, retries and progress',
    deps: { '@bridle/protocol': W, '@bridle/core': W },
    dev: { '@bridle/testing': W },
  },
  'packages/models': {
    name: '@bridle/models',
    description: 'Bridle model ids and environment: resolve openai:, anthropic: and openai-compatible: ids to models',
    deps: { '@bridle/protocol': W, '@bridle/openai': W, '@bridle/anthropic': W },
    dev: { '@bridle/testing': W },
  },
  'apps/server': {
    name: '@bridle/server',
    description: 'Bridle HTTP server: chat with SSE streaming, sessions and batch jobs on Fastify',
    bin: { 'bridle-server': './dist/bin.js' },
    entries: ['src/index.ts', 'src/bin.ts'],
    deps: {
      '@bridle/protocol': W,
      '@bridle/core': W,
      '@bridle/events': W,
      '@bridle/skills': W,
      '@bridle/batch': W,
      '@bridle/models': W,
      fastify: '5.12.8',
    },
    dev: { '@bridle/testing': W },
  },
  'apps/cli': {
    name: 'bridle',
    description: 'The bridle command line: run, chat, batch, demo and serve Bridle agents',
    bin: { bridle: './dist/bin.js' },
    entries: ['src/index.ts', 'src/bin.ts'],
    deps: {
      '@bridle/protocol': W,
      '@bridle/core': W,
      '@bridle/events': W,
      '@bridle/skills': W,
      '@bridle/batch': W,
      '@bridle/models': W,
      '@bridle/tools': W,
      '@bridle/workspace-tools': W,
      '@bridle/server': W,
      commander: '14.0.3',
      'cli-progress': '3.12.0',
    },
    dev: { '@bridle/testing': W, '@types/cli-progress': '3.11.6' },
  },
};

const exportsMap = (source) => {
  const m = {
    '.': {
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    },
    './package.json': './package.json',
  };
  if (source) m['.'] = { '@bridle/source': './src/index.ts', ...m['.'] };
  return m;
};

for (const [dir, p] of Object.entries(pkgs)) {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const file = path.join(dir, 'package.json');
  const old = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const json = {
    name: p.name,
    version: '0.1.0',
    description: p.description,
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/bridle-dev/bridle.git', directory: dir },
    homepage: `https://github.com/bridle-dev/bridle/tree/main/${dir}#readme`,
    keywords: ['agent', 'llm', 'ai', 'harness', 'tools'],
    type: 'module',
    sideEffects: false,
    engines: { node: '>=20.19' },
    main: './dist/index.cjs',
    module: './dist/index.js',
    types: './dist/index.d.cts',
    exports: exportsMap(true),
    ...(p.bin ? { bin: p.bin } : {}),
    files: ['dist', 'README.md', 'LICENSE'],
    scripts: {
      build: 'tsup',
      test: 'vitest run',
      typecheck: 'tsc --noEmit',
      ...(old.scripts ?? {}),
    },
    dependencies: { ...p.deps, ...(old.dependencies ?? {}) },
    devDependencies: { ...(p.dev ?? {}), ...(old.devDependencies ?? {}) },
    publishConfig: { access: 'public', exports: exportsMap(false) },
  };
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  const depth = dir.split('/').length;
  const up = '../'.repeat(depth);
  const write = (name, text) => {
    const f = path.join(dir, name);
    if (!fs.existsSync(f)) fs.writeFileSync(f, text);
  };
  write(
    'tsconfig.json',
    `${JSON.stringify({ extends: `${up}tsconfig.base.json`, include: ['src', 'test'] }, null, 2)}\n`,
  );
  write(
    'tsup.config.ts',
    `import { defineConfig } from 'tsup';\nimport { packageBuild } from '${up}tsup.shared';\n\nexport default defineConfig(packageBuild(${p.entries ? `{ entry: ${JSON.stringify(p.entries).replaceAll('"', "'")} }` : ''}));\n`,
  );
  write('vitest.config.ts', `import { sharedConfig } from '${up}vitest.shared';\n\nexport default sharedConfig;\n`);
  fs.copyFileSync('LICENSE', path.join(dir, 'LICENSE'));
}
