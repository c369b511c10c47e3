import { describe, expect, it } from 'vitest';
import { commandTool, DEFAULT_PROTECTED, WORKSPACE_PATH_FORMAT, Workspace, workspaceTools } from '../src/index';
import { byName, context, refusal, snapshot, tempTree } from './helpers';

// Issue 28 item 7: the harness's own state (`.bridle/`, where a run store and journals may live) is
// protected for every operation, like `.git`: an agent that could write there could plant an
// "approved" pause or a session the user would continue.
const FILES = {
  '.bridle/bridle.db': 'SQLite format 3 TOKEN',
  'sub/.bridle/bridle.db': 'SQLite format 3 TOKEN',
  'a.txt': 'TOKEN=public',
};

async function setup() {
  const tree = await tempTree(FILES);
  const workspace = await Workspace.open(tree.root);
  const tools = byName(workspaceTools(workspace));
  const call = (name: string, args: unknown) => tools[name]!.execute(args, context());
  return { ...tree, workspace, call };
}

describe('.bridle is a protected path', () => {
  it('is in DEFAULT_PROTECTED, at the root and at any depth', async () => {
    expect(DEFAULT_PROTECTED).toEqual(expect.arrayContaining(['.bridle/**', '**/.bridle/**']));
    const { workspace } = await setup();
    for (const path of ['.bridle', '.bridle/bridle.db', '.BRIDLE/x', 'sub/.bridle/bridle.db', 'a/b/.bridle'])
      expect(workspace.isProtected(path)).toBe(true);
    expect(workspace.isProtected('bridle/x')).toBe(false);
    expect(workspace.isProtected('.bridlerc')).toBe(false);
  });

  it.each([
    ['read_file', { path: '.bridle/bridle.db' }],
    ['read_file', { path: 'sub/.bridle/bridle.db' }],
    ['write_file', { path: '.bridle/bridle.db', content: 'planted' }],
    ['write_file', { path: '.bridle/new/journal.db', content: 'planted' }],
    ['write_file', { path: 'sub/.bridle/bridle.db', content: 'planted' }],
    ['write_file', { path: '.bridle', content: 'a file where the folder was' }],
    ['edit_file', { path: '.bridle/bridle.db', oldText: 'TOKEN', newText: 'x' }],
    ['list_directory', { path: '.bridle' }],
    ['list_directory', { path: 'sub/.bridle' }],
    ['search_text', { pattern: 'TOKEN', path: '.bridle' }],
  ])('refuses %s %j, changing nothing', async (name, args) => {
    const { call, root } = await setup();
    const before = await snapshot(root);
    const error = await refusal(call(name, args));
    expect(error).toMatchObject({ code: 'protected_path' });
    expect(error.message).toMatch(/".*\.bridle.*" is a protected path/);
    expect(await snapshot(root)).toEqual(before);
  });

  it('leaves .bridle out of listings, globs and searches of the whole workspace', async () => {
    const { call } = await setup();
    expect(await call('list_directory', {})).toBe('a.txt (12 bytes)\nsub/');
    expect(await call('find_files', { pattern: '**/*' })).toBe('a.txt');
    expect(await call('find_files', { pattern: '**/bridle.db' })).toBe('No files match "**/bridle.db".');
    expect(await call('find_files', { pattern: '**/.bridle/**' })).toBe('No files match "**/.bridle/**".');
    // A glob that starts inside it is refused, as a path is.
    expect(await refusal(call('find_files', { pattern: '.bridle/*' }))).toMatchObject({ code: 'protected_path' });
    expect(await call('search_text', { pattern: 'TOKEN' })).toBe('a.txt:1: TOKEN=public');
  });

  it("refuses it as a preset's workspace-path parameter", async () => {
    const { root } = await setup();
    const tool = commandTool(await Workspace.open(root), {
      cat: { executable: 'cat', args: ['--'], params: { file: { type: 'string', format: WORKSPACE_PATH_FORMAT } } },
    });
    for (const file of ['.bridle/bridle.db', 'sub/.bridle/bridle.db'])
      expect(await refusal(tool.execute({ command: 'cat', params: { file } }, context()))).toMatchObject({
        code: 'protected_path',
      });
  });
});
