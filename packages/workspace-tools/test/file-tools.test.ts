import { chmod, link, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { Workspace, WorkspaceError, workspaceTools } from '../src/index';
import { byName, context, refusal, snapshot, tempTree } from './helpers';

async function setup(files: Record<string, string | Buffer> = {}, options = {}) {
  const tree = await tempTree(files);
  const workspace = await Workspace.open(tree.root, options);
  const tools = byName(workspaceTools(workspace));
  const call = (name: string, args: unknown) => tools[name]!.execute(args, context());
  return { ...tree, workspace, tools, call };
}

describe('workspaceTools', () => {
  it('returns the six tools with strict schemas, and only the read-only ones with readOnly', async () => {
    const { workspace } = await setup();
    const all = workspaceTools(workspace);
    expect(all.map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_directory',
      'find_files',
      'search_text',
    ]);
    expect(all.filter((tool) => tool.readOnly).map((tool) => tool.name)).toEqual([
      'read_file',
      'list_directory',
      'find_files',
      'search_text',
    ]);
    for (const tool of all) expect(tool.parameters.additionalProperties).toBe(false);
    expect(workspaceTools(workspace, { readOnly: true }).map((tool) => tool.name)).toEqual([
      'read_file',
      'list_directory',
      'find_files',
      'search_text',
    ]);
  });
});

describe('Workspace.open', () => {
  it('resolves the root with realpath once', async () => {
    const { base, root } = await tempTree();
    await symlink(root, join(base, 'alias'));
    const workspace = await Workspace.open(join(base, 'alias'));
    expect(workspace.root).toBe(root);
  });

  it('is the only way to make a workspace: no static factory skips its root checks', () => {
    expect(
      Object.getOwnPropertyNames(Workspace).filter((name) => typeof Reflect.get(Workspace, name) === 'function'),
    ).toEqual(['open']);
  });

  it.each([
    ['a missing root', (base: string) => join(base, 'missing'), {}, /cannot be opened/],
    ['a file as root', (base: string) => join(base, 'outside', 'secret.txt'), {}, /not a readable directory/],
    ['a bad maxReadBytes', (base: string) => join(base, 'root'), { maxReadBytes: -1 }, /maxReadBytes/],
    ['a bad protected list', (base: string) => join(base, 'root'), { protected: [''] }, /protected/],
  ])('throws ConfigError for %s', async (_name, root, options, message) => {
    const { base } = await tempTree();
    const error = await refusal(Workspace.open(root(base), options));
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(message);
  });
});

describe('read_file', () => {
  it('reads a whole file and line ranges (endLine clamped to the end)', async () => {
    const { call } = await setup({ 'src/a.txt': 'one\ntwo\nthree\n' });
    expect(await call('read_file', { path: 'src/a.txt' })).toBe('one\ntwo\nthree\n');
    expect(await call('read_file', { path: './src//a.txt', startLine: 2, endLine: 2 })).toBe('two');
    expect(await call('read_file', { path: 'src/a.txt', startLine: 2, endLine: 99 })).toBe('two\nthree');
    expect(await call('read_file', { path: 'src/a.txt', endLine: 1 })).toBe('one');
  });

  it.each([
    [{ path: 'a.txt', startLine: 5 }, /startLine 5 is past the end of "a.txt", which has 2 lines/],
    [{ path: 'a.txt', startLine: 2, endLine: 1 }, /endLine \(1\) is before startLine \(2\)/],
    [{ path: 'a.txt', startLine: 0 }, /"startLine" must be an integer of 1 or more, got number 0/],
    [{ path: 'a.txt', startLine: 1.5 }, /"startLine" must be an integer/],
    [{ path: 'a.txt', startLine: '1' }, /"startLine" must be an integer/],
    [{ path: 'a.txt', extra: true }, /unknown property "extra"/],
    [{}, /"path" is required/],
    [{ path: 7 }, /"path" must be a string/],
    ['a.txt', /arguments must be an object/],
    [null, /arguments must be an object/],
  ])('refuses bad arguments %j', async (args, message) => {
    const { call } = await setup({ 'a.txt': 'x\ny\n' });
    const error = await refusal(call('read_file', args));
    expect(error.message).toMatch(message);
  });

  it.each([
    ['a NUL byte', Buffer.from('text\u0000more')],
    ['invalid UTF-8', Buffer.from([0x68, 0x69, 0xff, 0xfe])],
  ])('refuses binary files (%s)', async (_name, content) => {
    const { call } = await setup({ 'bin.dat': content });
    const error = await refusal(call('read_file', { path: 'bin.dat' }));
    expect(error).toMatchObject({ code: 'binary_file' });
    expect(error.message).toMatch(/"bin.dat" looks binary/);
  });

  it('refuses files over maxReadBytes, directories and missing files', async () => {
    const { call } = await setup({ 'big.txt': 'x'.repeat(101), 'dir/a.txt': 'a' }, { maxReadBytes: 100 });
    expect((await refusal(call('read_file', { path: 'big.txt' }))).message).toMatch(
      /"big.txt" is 101 bytes or more, above the read limit of 100 bytes/,
    );
    expect((await refusal(call('read_file', { path: 'dir' }))).message).toMatch(
      /"dir" is a directory; use list_directory/,
    );
    expect(await refusal(call('read_file', { path: 'nope.txt' }))).toMatchObject({ code: 'not_found' });
  });

  it('refuses a symlinked file, a symlinked parent and a dangling symlink, naming the component', async () => {
    const { call, root, outside } = await setup({ 'inner/ok.txt': 'ok' });
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'));
    await symlink(outside, join(root, 'linkdir'));
    await symlink(join(outside, 'missing'), join(root, 'dangling'));
    await symlink('inner/ok.txt', join(root, 'relative-link'));
    for (const [path, shown] of [
      ['link.txt', 'link.txt'],
      ['linkdir/secret.txt', 'linkdir'],
      ['dangling', 'dangling'],
      ['dangling/x', 'dangling'],
      ['relative-link', 'relative-link'],
    ]) {
      const error = await refusal(call('read_file', { path }));
      expect(error).toMatchObject({ code: 'symlink' });
      expect(error.message).toContain(`"${shown}" is a symbolic link`);
    }
  });

  it('refuses the root and escapes', async () => {
    const { call } = await setup();
    for (const path of ['.', '', '../outside/secret.txt', '/etc/passwd', 'a/../../outside/secret.txt']) {
      expect(await refusal(call('read_file', { path }))).toMatchObject({
        code: expect.stringMatching(/invalid_path|invalid_arguments/),
      });
    }
  });
});

describe('protected paths', () => {
  it.each(['.env', '.env.local', 'config/.env', '.git/config', '.GIT/HEAD', '.Env'])(
    'refuses reading %s',
    async (path) => {
      const { call } = await setup({
        '.env': 'KEY=1',
        '.env.local': 'KEY=2',
        'config/.env': 'KEY=3',
        '.git/config': '[core]',
        '.git/HEAD': 'ref',
      });
      const error = await refusal(call('read_file', { path }));
      expect(error).toMatchObject({ code: 'protected_path' });
      expect(error.message).toMatch(/is a protected path/);
    },
  );

  it('refuses writing protected paths even before they exist, touching nothing', async () => {
    const { call, root } = await setup({ 'a.txt': 'a' });
    const before = await snapshot(root);
    for (const path of ['.git/hooks/pre-commit', '.env', 'nested/.env.production', '.git']) {
      expect(await refusal(call('write_file', { path, content: 'x' }))).toMatchObject({ code: 'protected_path' });
    }
    expect(await snapshot(root)).toEqual(before);
  });

  it('hides protected entries from listings, globs and searches', async () => {
    const { call } = await setup({ '.env': 'TOKEN=abc', '.git/config': 'TOKEN=abc', 'a.txt': 'TOKEN=public' });
    expect(await call('list_directory', {})).toBe('a.txt (12 bytes)');
    expect(await call('find_files', { pattern: '**/*' })).toBe('a.txt');
    expect(await call('search_text', { pattern: 'TOKEN' })).toBe('a.txt:1: TOKEN=public');
    expect(await refusal(call('list_directory', { path: '.git' }))).toMatchObject({ code: 'protected_path' });
  });

  it('accepts a custom list (an empty list protects nothing)', async () => {
    const { root } = await tempTree({ '.env': 'KEY=1', 'secrets/key.pem': 'PEM' });
    const custom = byName(workspaceTools(await Workspace.open(root, { protected: ['secrets/**'] })));
    expect(await custom.read_file!.execute({ path: '.env' }, context())).toBe('KEY=1');
    expect(await refusal(custom.read_file!.execute({ path: 'secrets/key.pem' }, context()))).toMatchObject({
      code: 'protected_path',
    });
    const none = await Workspace.open(root, { protected: [] });
    expect(none.isProtected('.env')).toBe(false);
  });
});

describe('write_file', () => {
  it('creates parent directories inside the root and leaves no temp file', async () => {
    const { call, root } = await setup();
    expect(await call('write_file', { path: 'a/b/c.txt', content: 'héllo' })).toBe('Created a/b/c.txt (6 bytes).');
    expect(await readFile(join(root, 'a/b/c.txt'), 'utf8')).toBe('héllo');
    expect(await call('write_file', { path: 'a/b/c.txt', content: '' })).toBe('Wrote a/b/c.txt (0 bytes).');
    expect(await readdir(join(root, 'a/b'))).toEqual(['c.txt']);
  });

  it('keeps the mode of a file it replaces', async () => {
    const { call, root } = await setup({ 'run.sh': 'echo 1' });
    await chmod(join(root, 'run.sh'), 0o750);
    await call('write_file', { path: 'run.sh', content: 'echo 2' });
    expect((await stat(join(root, 'run.sh'))).mode & 0o777).toBe(0o750);
  });

  it('refuses, touching nothing: hard links, oversize content, symlinks, directories, files as parents', async () => {
    const { call, root, outside, base } = await setup({ 'a.txt': 'a', 'dir/keep.txt': 'k' }, { maxWriteBytes: 10 });
    await link(join(root, 'a.txt'), join(root, 'hard.txt'));
    await symlink(outside, join(root, 'out'));
    await symlink(join(outside, 'new.txt'), join(root, 'dangling.txt'));
    const before = await snapshot(base);
    const cases: [string, string, string | RegExp][] = [
      ['hard.txt', 'x', /has 2 hard links/],
      ['a.txt', 'x'.repeat(11), /11 bytes, above the write limit of 10 bytes/],
      ['out/new.txt', 'x', /"out" is a symbolic link/],
      ['out/deeper/new.txt', 'x', /"out" is a symbolic link/],
      ['dangling.txt', 'x', /"dangling.txt" is a symbolic link/],
      ['dir', 'x', /"dir" is a directory/],
      ['a.txt/child.txt', 'x', /"a.txt" is not a directory/],
    ];
    for (const [path, content, message] of cases) {
      expect((await refusal(call('write_file', { path, content }))).message).toMatch(message);
    }
    expect(await snapshot(base)).toEqual(before);
  });
});

describe('edit_file', () => {
  it('replaces literally: $& and $1 in newText stay as typed', async () => {
    const { call, root } = await setup({ 'a.js': 'const price = 1;\n' });
    expect(await call('edit_file', { path: 'a.js', oldText: '1', newText: "'$&$1$$'" })).toMatch(
      /replaced 1 occurrence/,
    );
    expect(await readFile(join(root, 'a.js'), 'utf8')).toBe("const price = '$&$1$$';\n");
  });

  it.each([
    [{ oldText: 'missing', newText: 'x' }, /oldText was not found in "a.txt"/],
    [{ oldText: 'dup', newText: 'x' }, /oldText occurs 2 times in "a.txt"/],
    [{ oldText: 'aa', newText: 'b' }, /oldText occurs 2 times/], // overlapping "aaa"
    [{ oldText: 'dup', newText: 'dup' }, /identical/],
    [{ oldText: '', newText: 'x' }, /"oldText" must not be empty/],
  ])('refuses %j and writes nothing', async (args, message) => {
    const { call, root } = await setup({ 'a.txt': 'dup dup aaa' });
    const before = await snapshot(root);
    expect((await refusal(call('edit_file', { path: 'a.txt', ...args }))).message).toMatch(message);
    expect(await snapshot(root)).toEqual(before);
  });
});

describe('list_directory', () => {
  it('lists the root and subdirectories with types and sizes, never following symlinks', async () => {
    const { call, root, outside } = await setup({ 'b.txt': 'bb', 'a/x.txt': 'x' });
    await symlink(outside, join(root, 'c-link'));
    const expected = 'a/\nb.txt (2 bytes)\nc-link@ (symlink, not followed)';
    expect(await call('list_directory', {})).toBe(expected);
    expect(await call('list_directory', { path: '.' })).toBe(expected);
    expect(await call('list_directory', { path: 'a' })).toBe('x.txt (1 bytes)');
    await mkdir(join(root, 'empty'));
    expect(await call('list_directory', { path: 'empty/' })).toBe('Directory "empty" is empty.');
    expect((await refusal(call('list_directory', { path: 'c-link' }))).message).toMatch(/"c-link" is a symbolic link/);
    expect((await refusal(call('list_directory', { path: 'b.txt' }))).message).toMatch(/"b.txt" is not a directory/);
    expect((await refusal(call('list_directory', { path: '..' }))).message).toMatch(/contains "\.\."/);
  });

  it('stops at maxListEntries and says so', async () => {
    const { root } = await tempTree({ '1': '', '2': '', '3': '' });
    const tools = byName(workspaceTools(await Workspace.open(root), { maxListEntries: 2 }));
    expect(await tools.list_directory!.execute({}, context())).toBe(
      '1 (0 bytes)\n2 (0 bytes)\n[listing stopped after 2 entries]',
    );
  });
});

describe('find_files', () => {
  it('matches globs from the root, dotfiles included, without following symlinked directories', async () => {
    const { call, root, outside } = await setup({
      'src/a.ts': '',
      'src/deep/b.ts': '',
      'src/c.js': '',
      '.config/d.ts': '',
    });
    await symlink(outside, join(root, 'src/escape'));
    await writeFile(join(outside, 'e.ts'), '');
    expect(await call('find_files', { pattern: '**/*.ts' })).toBe('.config/d.ts\nsrc/a.ts\nsrc/deep/b.ts');
    expect(await call('find_files', { pattern: 'src/*.{ts,js}' })).toBe('src/a.ts\nsrc/c.js');
    expect(await call('find_files', { pattern: 'missing/**/*.ts' })).toBe('No files match "missing/**/*.ts".');
  });

  it('bounds results and visited entries', async () => {
    const { root } = await tempTree({ 'a.txt': '', 'b.txt': '', 'c.txt': '' });
    const few = byName(workspaceTools(await Workspace.open(root), { find: { maxResults: 2 } }));
    expect(await few.find_files!.execute({ pattern: '*.txt' }, context())).toBe(
      'a.txt\nb.txt\n[stopped after 2 results; use a narrower pattern]',
    );
    const shallow = byName(workspaceTools(await Workspace.open(root), { find: { maxEntries: 1 } }));
    expect(await shallow.find_files!.execute({ pattern: '*.txt' }, context())).toBe(
      'a.txt\n[stopped after visiting 1 entries, at "b.txt": it and the entries after it (in name order) were not searched; use a narrower pattern or path]',
    );
  });

  it.each([
    ['../outside/*', /contains "\.\."/],
    ['/etc/*', /is absolute/],
    ['src\\*.ts', /backslash/],
    ['*'.repeat(1001), /limit is 1000/],
  ])('refuses the pattern %j', async (pattern, message) => {
    const { call } = await setup();
    expect((await refusal(call('find_files', { pattern }))).message).toMatch(message);
  });
});

describe('search_text', () => {
  it('finds lines by regex, filtered by path and by a basename glob', async () => {
    const { call } = await setup({
      'src/a.ts': 'function main() {}\nconst x = 1;\n',
      'src/b.md': 'function in docs\n',
      'c.ts': 'function top() {}\n',
    });
    expect(await call('search_text', { pattern: 'function\\s+\\w+\\(' })).toBe(
      'c.ts:1: function top() {}\nsrc/a.ts:1: function main() {}',
    );
    expect(await call('search_text', { pattern: 'function', glob: '*.md' })).toBe('src/b.md:1: function in docs');
    expect(await call('search_text', { pattern: 'const', path: 'src' })).toBe('src/a.ts:2: const x = 1;');
    expect(await call('search_text', { pattern: 'main', path: 'src/a.ts' })).toBe('src/a.ts:1: function main() {}');
    expect(await call('search_text', { pattern: 'nothing here' })).toBe('No matches for /nothing here/ in 3 files.');
  });

  it('skips binary and oversized files and stops at maxMatches, saying so', async () => {
    const { root } = await tempTree({
      'bin.dat': Buffer.from('hit\u0000'),
      'big.txt': `hit\n${'x'.repeat(200)}`,
      'many.txt': 'hit\nhit\nhit\n',
    });
    const tools = byName(workspaceTools(await Workspace.open(root), { search: { maxFileBytes: 100, maxMatches: 2 } }));
    expect(await tools.search_text!.execute({ pattern: 'hit' }, context())).toBe(
      'many.txt:1: hit\nmany.txt:2: hit\n[stopped at 2 matches; narrow the pattern, path or glob]\n[files skipped: 1 over the size limit, 1 binary]',
    );
  });

  it('reads at most maxTotalBytes in walk order: a file that no longer fits is skipped, the next at the cap is where it stopped', async () => {
    const files: Record<string, string> = {
      'a.txt': 'hit 1 ...\n',
      'b.txt': 'hit 2 ...\n',
      'c.txt': `hit 3 ${'x'.repeat(40)}\n`,
      'd.txt': 'hit4\n',
    };
    // Enough files after the cap that reads ahead of it are in flight when it is reached.
    for (let index = 0; index < 20; index++) files[`e${String(index).padStart(2, '0')}.txt`] = 'hit after the cap\n';
    const { root } = await tempTree(files);
    const tools = byName(workspaceTools(await Workspace.open(root), { search: { maxTotalBytes: 25 } }));
    expect(await tools.search_text!.execute({ pattern: 'hit' }, context())).toBe(
      [
        'a.txt:1: hit 1 ...',
        'b.txt:1: hit 2 ...',
        'd.txt:1: hit4',
        '[stopped after reading 25 bytes, at "e00.txt": it and the files after it (in name order) were not searched; narrow path or glob]',
        '[files skipped: 1 over the size limit]',
      ].join('\n'),
    );
  });

  it('stops a catastrophically backtracking pattern at the deadline', async () => {
    const { root } = await tempTree({ 'a.txt': `${'a'.repeat(40)}!\n` });
    const tools = byName(workspaceTools(await Workspace.open(root), { search: { timeoutMs: 300 } }));
    const error = await refusal(tools.search_text!.execute({ pattern: '^(a+)+$' }, context()));
    expect(error).toMatchObject({ code: 'search_timeout' });
    expect(error.message).toMatch(/longer than 300 ms .* simplify it/);
  });

  it('stops when the signal aborts', async () => {
    const { call: _call, root } = await setup({ 'a.txt': `${'a'.repeat(40)}!\n` });
    const tools = byName(workspaceTools(await Workspace.open(root)));
    const controller = new AbortController();
    const pending = tools.search_text!.execute({ pattern: '^(a|a)+$' }, context(controller.signal));
    setTimeout(() => controller.abort(), 50);
    expect(await refusal(pending)).toMatchObject({ code: 'aborted' });
  });

  it.each([
    [{ pattern: '(' }, /not a valid regular expression/],
    [{ pattern: 'x'.repeat(501) }, /limit is 500/],
    [{ pattern: 'x', path: '../outside' }, /contains "\.\."/],
    [{ pattern: 'x', glob: '../*' }, /contains "\.\."/],
    [{ pattern: 'x', flags: 'g' }, /unknown property "flags"/],
  ])('refuses %j', async (args, message) => {
    const { call } = await setup({ 'a.txt': 'x' });
    expect((await refusal(call('search_text', args))).message).toMatch(message);
  });
});

it('WorkspaceError.isInstance recognises refusals', async () => {
  const { call } = await setup();
  expect(WorkspaceError.isInstance(await refusal(call('read_file', { path: '/x' })))).toBe(true);
});
