// Release rehearsal: proves that `pnpm version-packages` and `pnpm release` produce packages a user can
// install and run, without publishing anything anywhere real.
//   1. starts a throwaway npm registry on loopback (Verdaccio, scripts/local-registry.mjs);
//   2. copies the repository (tracked and untracked-but-not-ignored files) to a temp folder, installs it
//      there, adds a test changeset and runs `pnpm version-packages` and `pnpm release` in the copy,
//      pointed at the local registry only (a temp npm user config, npm_config_registry and the @bridle
//      scope registry; it checks npm and pnpm resolve the registry to loopback before publishing);
//   3. in an empty folder installs `bridle` globally into a temp prefix and @bridle/core + @bridle/openai
//      (plus what the README examples import) from that registry, then runs the README examples of the
//      installed packages and of the root README as plain JavaScript on Node, and `bridle demo`;
//   4. installs every published package in an empty folder with npm on Node 20, 22 and 24 (`npx -y node@N`)
//      and fails on any EBADENGINE warning (a dependency whose `engines` excludes a Node the packages claim).
// The real checkout is never written to (checked at the end); processes and temp folders are removed on
// every exit path. Usage: node scripts/release-rehearsal.mjs [--keep]   (--keep leaves the temp folder)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalRegistry } from './local-registry.mjs';
import { childEnv, run, script } from './process-group.mjs';
import { importedPackages, runnableBlocks } from './readme-blocks.mjs';

const root = path.resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const started = Date.now();
const seconds = (from) => `${((Date.now() - from) / 1000).toFixed(1)} s`;

async function step(name, body) {
  const from = Date.now();
  console.log(`\n== ${name}`);
  const result = await body();
  console.log(`   ${name}: ok (${seconds(from)})`);
  return result;
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const gitStatus = () =>
  execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root }).toString();

/** The workspace packages: `{ name, dir, private }`. */
function workspacePackages(repo) {
  return ['packages', 'apps'].flatMap((group) =>
    fs
      .readdirSync(path.join(repo, group))
      .map((name) => path.join(repo, group, name))
      .filter((dir) => fs.existsSync(path.join(dir, 'package.json')))
      .map((dir) => ({ ...readJson(path.join(dir, 'package.json')), dir })),
  );
}

/** Copies the checkout's tracked and untracked-but-not-ignored files (no node_modules, dist, .git). */
function copyCheckout(to) {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\0')
    .filter(Boolean);
  let copied = 0;
  for (const file of files) {
    const from = path.join(root, file);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(from, path.join(to, file), { verbatimSymlinks: true });
    copied++;
  }
  return copied;
}

/** A version pin for a non-Bridle package a README example imports, from the workspace's package.json files. */
function pinFor(name, repo) {
  for (const manifest of [readJson(path.join(repo, 'package.json')), ...workspacePackages(repo)]) {
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      const version = manifest[field]?.[name];
      if (version && !version.startsWith('workspace:')) return version;
    }
  }
  throw new Error(`a README example imports "${name}", which no package.json of the workspace pins`);
}

/** The dependencies npm installed although their `engines.node` excludes this Node (its EBADENGINE warnings). */
function engineMismatches(output) {
  const pattern = /EBADENGINE\s+package: '([^']+)',\s*\n.*EBADENGINE\s+required: \{ node: '([^']+)'/g;
  return [...new Set([...output.matchAll(pattern)].map((match) => `${match[1]} (node ${match[2]})`))];
}

/** The Node majors the packages claim (`engines: node >= 20.19`) whose clean installs must not warn. */
const ENGINE_MAJORS = ['20', '22', '24'];

/** The node binary of a major: this one when it matches, else the `node` package run once through npx. */
async function nodeBinary(major) {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  const probe = await run('npx', ['-y', `node@${major}`, '-p', 'process.execPath'], {
    cwd: root,
    env: childEnv(),
    timeoutMs: 10 * 60_000,
  });
  return probe.stdout.trim().split('\n').at(-1);
}

/** npm's own entry script, so that it can run under another Node than the one on PATH. */
function npmCli() {
  const global = execFileSync('npm', ['root', '--global'], { env: childEnv() }).toString().trim();
  const cli = path.join(global, 'npm', 'bin', 'npm-cli.js');
  if (!fs.existsSync(cli)) throw new Error(`npm's entry script is not at ${cli}`);
  return cli;
}

async function fetchJson(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.json();
}

await script(async (defer) => {
  const before = gitStatus();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bridle-release-rehearsal-'));
  if (keep) console.log(`temp folder (kept): ${tmp}`);
  else defer(() => fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 }));
  const repo = path.join(tmp, 'repo');
  const consumer = path.join(tmp, 'consumer');
  const prefix = path.join(tmp, 'global');
  for (const dir of [repo, consumer, prefix, path.join(tmp, 'registry')]) fs.mkdirSync(dir);

  const registry = await step('local registry (Verdaccio)', async () => {
    const uplink = (await run('npm', ['config', 'get', 'registry'], { cwd: root, env: childEnv() })).stdout.trim();
    const started = await startLocalRegistry({ dir: path.join(tmp, 'registry'), uplink });
    defer(started.stop);
    console.log(`   ${started.url} (other packages proxied from ${uplink})`);
    return started;
  });
  const host = registry.url.replace(/^http:/, '');
  const userconfig = path.join(tmp, 'npmrc');
  fs.writeFileSync(
    userconfig,
    `registry=${registry.url}\n@bridle:registry=${registry.url}\n${host}:_authToken=${registry.token}\n`,
  );
  // Native addons (better-sqlite3, under the bridle CLI) compile with node-gyp when no prebuilt binary can
  // be fetched. The temp user config drops the user's own `nodedir`, so node-gyp would try to download
  // Node's headers: keep the user's setting, else use the headers installed beside this Node, if any.
  const userNodedir = (await run('npm', ['config', 'get', 'nodedir'], { cwd: root, env: childEnv() })).stdout.trim();
  const besideNode = path.resolve(path.dirname(process.execPath), '..');
  const nodedir =
    userNodedir && userNodedir !== 'undefined' && userNodedir !== 'null'
      ? userNodedir
      : fs.existsSync(path.join(besideNode, 'include', 'node', 'common.gypi'))
        ? besideNode
        : undefined;
  // Every command that may talk to a registry from here on sees only the local one.
  const registryEnv = childEnv({
    ...(nodedir === undefined ? {} : { npm_config_nodedir: nodedir }),
    npm_config_userconfig: userconfig,
    npm_config_registry: registry.url,
    'npm_config_@bridle:registry': registry.url,
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  });

  const version = await step('copy, install and version the repository in a temp folder', async () => {
    console.log(`   ${copyCheckout(repo)} files copied to ${repo}`);
    const git = (...args) =>
      run('git', ['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args], {
        cwd: repo,
        env: childEnv({ GIT_AUTHOR_NAME: 'rehearsal', GIT_AUTHOR_EMAIL: 'rehearsal@localhost' }),
      });
    const commit = async (message) => {
      await git('add', '-A');
      await git('-c', 'user.name=rehearsal', '-c', 'user.email=rehearsal@localhost', 'commit', '-q', '-m', message);
    };
    await git('init', '-q', '-b', 'main');
    await commit('the checkout under rehearsal');
    // Installed from the machine's usual registry and store, before any registry override exists.
    await run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], { cwd: repo, env: childEnv() });

    const packages = workspacePackages(repo).filter((pkg) => !pkg.private);
    const previous = new Set(packages.map((pkg) => pkg.version));
    const summary = `Release rehearsal ${process.pid}: a patch changeset published to a throwaway registry only.`;
    fs.writeFileSync(
      path.join(repo, '.changeset', 'release-rehearsal.md'),
      `---\n"bridle": patch\n---\n\n${summary}\n`,
    );
    await commit('a test changeset');
    await run('pnpm', ['run', 'version-packages'], { cwd: repo, env: childEnv() });

    const versions = workspacePackages(repo).filter((pkg) => !pkg.private);
    const bumped = new Set(versions.map((pkg) => pkg.version));
    if (bumped.size !== 1) throw new Error(`the fixed group split: ${versions.map((p) => `${p.name}@${p.version}`)}`);
    const [next] = bumped;
    if (previous.has(next)) throw new Error(`changeset version left the version at ${next}`);
    const changelog = fs.readFileSync(path.join(repo, 'apps', 'cli', 'CHANGELOG.md'), 'utf8');
    if (!changelog.includes(summary)) throw new Error('apps/cli/CHANGELOG.md does not carry the test changeset');
    if (fs.readdirSync(path.join(repo, '.changeset')).some((file) => file.endsWith('.md') && file !== 'README.md')) {
      throw new Error('changeset version left changesets behind in .changeset/');
    }
    console.log(`   ${versions.length} packages: ${[...previous].join(', ')} -> ${next}`);
    await commit('version packages');
    return next;
  });

  await step('publish to the local registry (pnpm release)', async () => {
    for (const [tool, args] of [
      ['npm', ['config', 'get', 'registry']],
      ['npm', ['config', 'get', '@bridle:registry']],
      ['pnpm', ['config', 'get', 'registry']],
      ['pnpm', ['config', 'get', '@bridle:registry']],
    ]) {
      const seen = (await run(tool, args, { cwd: repo, env: registryEnv })).stdout.trim().replace(/\/?$/, '/');
      if (seen !== registry.url)
        throw new Error(`${tool} ${args.join(' ')} in the copy says ${seen}: refusing to publish`);
    }
    await run('pnpm', ['run', 'release'], { cwd: repo, env: { ...registryEnv, CI: 'true' }, timeoutMs: 30 * 60_000 });
    const names = workspacePackages(repo)
      .filter((pkg) => !pkg.private)
      .map((pkg) => pkg.name);
    for (const name of names) {
      const packument = await fetchJson(`${registry.url}${name.replace('/', '%2f')}`);
      const manifest = packument.versions?.[version];
      if (!manifest) throw new Error(`${name}@${version} is not on the local registry`);
      const internal = Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(([, range]) =>
        range.startsWith('workspace:'),
      );
      if (internal.length > 0) throw new Error(`${name}@${version} was published with ${internal.join(', ')}`);
    }
    console.log(`   ${names.length} packages at ${version} on ${registry.url}`);
  });

  await step('install bridle globally and @bridle/core + @bridle/openai in an empty folder', async () => {
    const npm = (args, cwd = consumer) => run('npm', args, { cwd, env: registryEnv, timeoutMs: 20 * 60_000 });
    const global = await npm(['install', '--global', '--prefix', prefix, `bridle@${version}`]);
    await npm(['init', '-y']);
    const local = await npm(['install', `@bridle/core@${version}`, `@bridle/openai@${version}`]);
    // npm installs them anyway, but users with engine-strict cannot, and everyone else sees the warning.
    const mismatches = engineMismatches([global, local].map((result) => result.stdout + result.stderr).join('\n'));
    if (mismatches.length > 0)
      throw new Error(`installed with Bridle, but excluding Node ${process.versions.node}: ${mismatches.join(', ')}`);
    const installed = readJson(path.join(consumer, 'node_modules', '@bridle', 'core', 'package.json')).version;
    if (installed !== version) throw new Error(`@bridle/core ${installed} installed, expected ${version}`);
  });

  await step(
    `a clean npm install of every package on Node ${ENGINE_MAJORS.join(', ')}: no engine warning`,
    async () => {
      const names = workspacePackages(repo)
        .filter((pkg) => !pkg.private)
        .map((pkg) => `${pkg.name}@${version}`);
      for (const major of ENGINE_MAJORS) {
        const node = await nodeBinary(major);
        const folder = path.join(tmp, `engines-node-${major}`);
        fs.mkdirSync(folder);
        fs.writeFileSync(path.join(folder, 'package.json'), '{ "name": "engines-check", "private": true }\n');
        // Resolution is what warns; install scripts (a native build for this Node) are beside the point here.
        const result = await run(node, [npmCli(), 'install', '--ignore-scripts', ...names], {
          cwd: folder,
          env: registryEnv,
          timeoutMs: 20 * 60_000,
        });
        const output = result.stdout + result.stderr;
        const mismatches = engineMismatches(output);
        if (mismatches.length > 0 || output.includes('EBADENGINE'))
          throw new Error(`npm install on Node ${major} warns EBADENGINE: ${mismatches.join(', ') || output}`);
        console.log(`   Node ${major}: ${names.length} packages install without an engine warning`);
      }
    },
  );

  await step('run the README examples on the installed packages', async () => {
    const readmes = [
      path.join(consumer, 'node_modules', '@bridle', 'core', 'README.md'),
      path.join(consumer, 'node_modules', '@bridle', 'openai', 'README.md'),
      path.join(repo, 'README.md'),
    ];
    const examples = readmes.flatMap((readme) =>
      runnableBlocks(fs.readFileSync(readme, 'utf8')).map((block) => ({ ...block, readme })),
    );
    if (examples.length < readmes.length) throw new Error('a README under rehearsal has no ```ts run example');
    const needed = [...new Set(examples.flatMap((example) => importedPackages(example.code)))].filter(
      (name) => !fs.existsSync(path.join(consumer, 'node_modules', name, 'package.json')),
    );
    const specs = needed.map(
      (name) => `${name}@${name === 'bridle' || name.startsWith('@bridle/') ? version : pinFor(name, repo)}`,
    );
    if (specs.length > 0)
      await run('npm', ['install', ...specs], { cwd: consumer, env: registryEnv, timeoutMs: 20 * 60_000 });
    console.log(`   also installed for the examples: ${specs.join(' ') || 'nothing'}`);

    // TypeScript only strips the types (the examples run as plain ES modules on Node, no loader).
    const { default: ts } = await import('typescript');
    for (const [index, example] of examples.entries()) {
      const where = `${path.relative(tmp, example.readme)}:${example.line}`;
      const { outputText } = ts.transpileModule(example.code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      const file = path.join(consumer, `example-${index}.mjs`);
      fs.writeFileSync(file, outputText);
      const result = await run(process.execPath, [file], { cwd: consumer, env: childEnv(), timeoutMs: 120_000 });
      console.log(`   ok ${where}\n${result.stdout.trimEnd().replace(/^/gm, '      ')}`);
    }
    const cjs = "const core = require('@bridle/core'); if (typeof core.runAgent !== 'function') process.exit(1);";
    await run(process.execPath, ['-e', cjs], { cwd: consumer, env: childEnv() });
    console.log('   ok require("@bridle/core") (CommonJS)');
  });

  await step('bridle --version and bridle demo from the global install', async () => {
    const bin = path.join(prefix, 'bin', 'bridle');
    const env = childEnv({ PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}` });
    const shown = (await run(bin, ['--version'], { cwd: consumer, env })).stdout.trim();
    if (shown !== version) throw new Error(`bridle --version printed "${shown}", expected ${version}`);
    const demo = await run(bin, ['demo'], { cwd: consumer, env, timeoutMs: 5 * 60_000 });
    if (!demo.stdout.includes('Demo complete.')) throw new Error(`bridle demo did not complete:\n${demo.stdout}`);
    console.log(`   bridle ${shown}; demo: ${demo.stdout.trimEnd().split('\n').at(-1)}`);
  });

  if (gitStatus() !== before)
    throw new Error('git status of the real checkout changed during the rehearsal (by it, or by an edit meanwhile)');
  console.log(`\nrelease rehearsal passed in ${seconds(started)}: ${version} published to a loopback registry only`);
});
