// Issue 15 "Tools on real repositories": find_files and search_text skip what git ignores, and always
// .git and node_modules; explicit paths still reach ignored files.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Workspace, workspaceTools } from '../src/index';
import { fixtureRepository, TRACKED } from './fixture-repository';
import { byName, context, tempTree } from './helpers';

async function toolsOn(root: string, options: Parameters<typeof Workspace.open>[1] = {}) {
  return byName(workspaceTools(await Workspace.open(root, options)));
}

describe('find_files and search_text on a real repository layout', () => {
  it('find_files lists only what git would track: nested .gitignore, negations, .git/info/exclude', async () => {
    const { root } = await fixtureRepository();
    const tools = await toolsOn(root);
    expect(await tools.find_files!.execute({ pattern: '**/*' }, context())).toBe(TRACKED.join('\n'));
    expect(await tools.find_files!.execute({ pattern: '**/*.js' }, context())).toBe('No files match "**/*.js".');
  });

  it('agrees with git itself on the same tree', async () => {
    const git = ['/usr/bin/git', '/usr/local/bin/git'].find((path) => existsSync(path));
    if (git === undefined && process.env.CI !== 'true') {
      console.warn('SKIPPED: comparing with git needs git installed');
      return;
    }
    const { root } = await fixtureRepository();
    const env = { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync(git ?? 'git', ['init', '-q', '--template=', root], { env }); // keeps .git/info/exclude
    const listed = execFileSync(git ?? 'git', ['ls-files', '--others', '--exclude-standard'], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    // git would also list node_modules without a rule for it; the tools always skip it.
    const byGit = listed
      .trim()
      .split('\n')
      .filter((path) => !path.split('/').includes('node_modules'))
      .sort();
    expect(byGit).toEqual(TRACKED);
  });

  it('search_text finds text in src/ instead of stopping in node_modules', async () => {
    const { root } = await fixtureRepository();
    const tools = await toolsOn(root);
    expect(await tools.search_text!.execute({ pattern: 'needle' }, context())).toBe(
      [
        'keep.log:1: needle kept by a negation',
        'package.json:1: { "name": "needle" }',
        'packages/app/src/main.ts:1: const needle = 2;',
        'src/generated/keep.gen.ts:1: needle',
        'src/index.ts:1: export const needle = 1;',
      ].join('\n'),
    );
  });

  it('explicit paths still reach ignored entries: read_file, list_directory, search_text with path', async () => {
    const { root } = await fixtureRepository();
    const tools = await toolsOn(root);
    expect(await tools.read_file!.execute({ path: 'dist/bundle.js' }, context())).toBe('const needle = 1;\n');
    expect(await tools.read_file!.execute({ path: 'node_modules/lib/index.js' }, context())).toBe(
      'export const needle = 1;\n',
    );
    const listing = String(await tools.list_directory!.execute({ path: '.' }, context()));
    for (const name of ['dist/', 'node_modules/', 'debug.log', 'coverage/']) expect(listing).toContain(name);
    expect(await tools.search_text!.execute({ pattern: 'needle', path: 'dist' }, context())).toBe(
      'dist/bundle.js:1: const needle = 1;',
    );
    expect(await tools.search_text!.execute({ pattern: 'needle', path: 'node_modules/lib' }, context())).toBe(
      'node_modules/lib/index.js:1: export const needle = 1;\nnode_modules/lib/package.json:1: { "name": "lib", "description": "needle" }',
    );
    expect(await tools.search_text!.execute({ pattern: 'needle', path: 'src/generated/a.gen.ts' }, context())).toBe(
      'src/generated/a.gen.ts:1: needle',
    );
    expect(await tools.find_files!.execute({ pattern: 'dist/*.js' }, context())).toBe('dist/bundle.js');
  });

  it('rules of the directories above a walk that starts lower still apply', async () => {
    const { root } = await fixtureRepository();
    const tools = await toolsOn(root);
    expect(await tools.find_files!.execute({ pattern: 'src/generated/*' }, context())).toBe(
      'src/generated/.gitignore\nsrc/generated/keep.gen.ts',
    );
    expect(await tools.search_text!.execute({ pattern: 'needle', path: 'packages' }, context())).toBe(
      'packages/app/src/main.ts:1: const needle = 2;',
    );
  });

  it('skips .git and node_modules even without a .gitignore and with no protected paths', async () => {
    const { root } = await tempTree({
      '.git/config': 'needle',
      'node_modules/x/index.js': 'needle',
      'a/node_modules/y.js': 'needle',
      'Node_Modules/z.js': 'needle',
      'src/a.js': 'needle',
    });
    const tools = await toolsOn(root, { protected: [] });
    expect(await tools.find_files!.execute({ pattern: '**/*.js' }, context())).toBe('src/a.js');
    expect(await tools.search_text!.execute({ pattern: 'needle' }, context())).toBe('src/a.js:1: needle');
  });

  it('ignores a symlinked .gitignore (git does too) and never follows it', async () => {
    const { root, outside } = await tempTree({ 'a.txt': 'x', 'b.txt': 'x' });
    await writeFile(join(outside, 'rules'), 'a.txt\n');
    await symlink(join(outside, 'rules'), join(root, '.gitignore'));
    const tools = await toolsOn(root);
    expect(await tools.find_files!.execute({ pattern: '*.txt' }, context())).toBe('a.txt\nb.txt');
  });
});
