// Red-team suite: the model is prompt-injected and every argument is hostile (issue 4, SPEC "Tools").
// Each case names the attack; a refusal must be a WorkspaceError that touches nothing on disk.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { link, mkdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commandTool,
  GIT_SAFETY_ARGUMENTS,
  WORKSPACE_PATH_FORMAT,
  Workspace,
  WorkspaceError,
  type WorkspaceOperations,
  workspaceTools,
} from '../src/index';
import { byName, context, isRunning, refusal, snapshot, tempTree } from './helpers';

async function toolsFor(root: string, options: Parameters<typeof Workspace.open>[1] = {}) {
  const workspace = await Workspace.open(root, options);
  return { workspace, tools: byName(workspaceTools(workspace)) };
}

/** Runs a tool call that must be refused; returns the error, checking it is a WorkspaceError. */
async function refused(promise: unknown): Promise<Error & { code?: string }> {
  const error = await refusal(promise);
  expect(WorkspaceError.isInstance(error), String(error)).toBe(true);
  return error;
}

describe('path spellings', () => {
  it('"./", "//" and "." segments stay inside and reach the same file', async () => {
    const { root } = await tempTree({ 'a/b/c.txt': 'C' });
    const { tools } = await toolsFor(root);
    for (const path of ['./a//b/./c.txt', 'a/./b//c.txt', './/a/b/c.txt']) {
      expect(await tools.read_file!.execute({ path }, context())).toBe('C');
    }
    await tools.write_file!.execute({ path: './/a/./new.txt', content: 'N' }, context());
    expect(await readFile(join(root, 'a', 'new.txt'), 'utf8')).toBe('N');
  });

  it.each(['.//.env', './.git/', '.git/.', 'x/./../.env', '.env.', '.env/'])(
    '"%s" reaches no protected file and no parent',
    async (path) => {
      const { root, base } = await tempTree({ '.env': 'KEY=1', '.git/config': '[core]' });
      const before = await snapshot(base);
      const { tools } = await toolsFor(root);
      const error = await refused(tools.write_file!.execute({ path: `${path}`, content: 'x' }, context()));
      expect(error.code).toMatch(/^(protected_path|invalid_path)$/);
      expect(await snapshot(base)).toEqual(before);
    },
  );

  it.each([
    ['.GIT/config', 'upper-case .GIT'],
    ['.Git/HEAD', 'mixed-case .Git'],
    ['.ENV', 'upper-case .ENV'],
    ['.Env.local', 'mixed-case .Env.local'],
    ['config/.ENV.production', 'a nested upper-case .ENV.production'],
  ])('refuses %s (%s) for read, write and edit', async (path) => {
    const { root, base } = await tempTree({ [path]: 'SECRET=1' });
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    for (const call of [
      () => tools.read_file!.execute({ path }, context()),
      () => tools.write_file!.execute({ path, content: 'x' }, context()),
      () => tools.edit_file!.execute({ path, oldText: 'SECRET', newText: 'x' }, context()),
    ]) {
      expect((await refused(call())).code).toBe('protected_path');
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it('protects a nested .git directory (a planted repository could run hooks or fsmonitor)', async () => {
    const { root, base } = await tempTree({ 'vendor/lib/.git/config': '[core]' });
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    for (const path of ['vendor/lib/.git/config', 'sub/.git/config', 'sub/.GIT/hooks/pre-commit', 'sub/.git']) {
      const error = await refused(
        tools.write_file!.execute({ path, content: '[core]\n\tfsmonitor = touch pwned\n' }, context()),
      );
      expect(error.code).toBe('protected_path');
    }
    expect(await refused(tools.read_file!.execute({ path: 'vendor/lib/.git/config' }, context()))).toMatchObject({
      code: 'protected_path',
    });
    expect(await tools.find_files!.execute({ pattern: '**/config' }, context())).toBe('No files match "**/config".');
    expect(await snapshot(base)).toEqual(before);
  });

  it.each(['206A', '206B', '206C', '206D', '206E', '206F'])(
    'refuses the HFS+-ignorable code point U+%s hidden in ".git"',
    async (hex) => {
      const character = String.fromCodePoint(Number.parseInt(hex, 16));
      const { root, base } = await tempTree();
      const before = await snapshot(base);
      const { tools } = await toolsFor(root);
      const error = await refused(
        tools.write_file!.execute({ path: `.g${character}it/config`, content: 'x' }, context()),
      );
      expect(error.code).toBe('invalid_path');
      expect(error.message).toMatch(/control or invisible character/);
      expect(await snapshot(base)).toEqual(before);
    },
  );

  it('matches protected patterns across Unicode normalization forms (NFC pattern, NFD path and back)', async () => {
    const { root, base } = await tempTree();
    const before = await snapshot(base);
    const nfc = await toolsFor(root, { protected: ['caf\u00e9/**'] });
    const nfd = await toolsFor(root, { protected: ['cafe\u0301/**'] });
    for (const [tools, path] of [
      [nfc.tools, 'cafe\u0301/menu.txt'],
      [nfd.tools, 'caf\u00e9/menu.txt'],
    ] as const) {
      expect((await refused(tools.write_file!.execute({ path, content: 'x' }, context()))).code).toBe('protected_path');
    }
    expect(nfc.workspace.isProtected('CAFE\u0301/x')).toBe(true);
    expect(await snapshot(base)).toEqual(before);
  });

  it('refuses a write into a protected directory through parents that do not exist yet, creating none', async () => {
    const { root, base } = await tempTree();
    const before = await snapshot(base);
    const { tools } = await toolsFor(root, { protected: ['secrets/**', '*.pem', 'deploy/keys/*'] });
    for (const path of ['secrets/new/deep/file.txt', 'fresh/dir/server.PEM', 'deploy/keys/id']) {
      expect((await refused(tools.write_file!.execute({ path, content: 'x' }, context()))).code).toBe('protected_path');
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it('refuses a name longer than the file system allows, and a path over 4096 characters, touching nothing', async () => {
    const { root, base } = await tempTree();
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    const longName = await refused(
      tools.write_file!.execute({ path: `d/${'n'.repeat(300)}`, content: 'x' }, context()),
    );
    expect(longName).toMatchObject({ code: 'invalid_path' });
    expect(longName.message).toMatch(/has a name of 300 bytes .*names are limited to 255 bytes/);
    const multiByte = await refused(
      tools.write_file!.execute({ path: `d/${'é'.repeat(128)}`, content: 'x' }, context()),
    );
    expect(multiByte.message).toMatch(/has a name of 256 bytes/);
    const longPath = await refused(tools.read_file!.execute({ path: 'a/'.repeat(2049) }, context()));
    expect(longPath.message).toMatch(/is 4098 characters long; the limit is 4096/);
    expect(await snapshot(base)).toEqual(before);
  });

  it('a deep path at the depth limit is created one directory at a time inside the root', async () => {
    const { root, outside } = await tempTree();
    const outsideBefore = await snapshot(outside);
    const { tools } = await toolsFor(root);
    const path = `${'d/'.repeat(255)}f.txt`;
    expect(await tools.write_file!.execute({ path, content: 'deep' }, context())).toBe(`Created ${path} (4 bytes).`);
    expect(await tools.read_file!.execute({ path }, context())).toBe('deep');
    expect(await snapshot(outside)).toEqual(outsideBefore);
  });

  // Issue 18 item 4: a model-written path 2,000 levels deep blocked the event loop (the protected-path
  // check tried a regex on every prefix) and took seconds of lstat calls. It is refused before any work.
  it('a path deeper than 256 levels is refused before anything is checked or created', async () => {
    const { root, base } = await tempTree();
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    const path = `${'a/'.repeat(2000)}f.txt`;
    for (const call of [
      () => tools.write_file!.execute({ path, content: 'x' }, context()),
      () => tools.read_file!.execute({ path }, context()),
      () => tools.list_directory!.execute({ path: 'a/'.repeat(300) }, context()),
    ]) {
      const error = await refused(call());
      expect(error.code).toBe('invalid_path');
      expect(error.message).toMatch(/is (2001|300) levels deep; the limit is 256\.$/);
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it('a path that passes PATH_MAX with the root in front is refused for writes and reads alike', async () => {
    const { root, base } = await tempTree();
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    // 20 names of 203 bytes: within the 4096-character path rule, past PATH_MAX once the root is added.
    const path = Array.from({ length: 20 }, (_, index) => `${index}`.padEnd(203, 'n')).join('/');
    for (const call of [
      () => tools.write_file!.execute({ path, content: 'x' }, context()),
      () => tools.read_file!.execute({ path }, context()),
    ]) {
      const error = await refused(call());
      expect(error.code).toBe('invalid_path');
      expect(error.message).toMatch(/bytes long with the workspace root in front; the system limit is 4096/);
    }
    expect(await snapshot(base)).toEqual(before);
  });

  it('a symlinked root given by the caller is resolved once; repointing the link later changes nothing', async () => {
    const { base, root, outside } = await tempTree({ 'f.txt': 'INSIDE' });
    await writeFile(join(outside, 'f.txt'), 'OUTSIDE SECRET');
    const alias = join(base, 'alias');
    await symlink(root, alias);
    const outsideBefore = await snapshot(outside);
    const { tools, workspace } = await toolsFor(alias);
    expect(workspace.root).toBe(root);
    await rename(alias, join(base, 'alias.old'));
    await symlink(outside, alias);
    expect(await tools.read_file!.execute({ path: 'f.txt' }, context())).toBe('INSIDE');
    await tools.write_file!.execute({ path: 'f.txt', content: 'NEW' }, context());
    expect(await readFile(join(root, 'f.txt'), 'utf8')).toBe('NEW');
    expect(await snapshot(outside)).toEqual(outsideBefore);
  });
});

describe('special files and type confusion', () => {
  it('a FIFO is refused for read, write and edit without blocking, and skipped by find and search', async () => {
    const { root, outside } = await tempTree({ 'ok.txt': 'needle' });
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const before = await snapshot(outside); // (a snapshot of root would block reading the FIFO)
    const { tools } = await toolsFor(root);
    // One call at a time: started together, a later call could reject before anything handles it.
    for (const call of [
      () => tools.read_file!.execute({ path: 'pipe' }, context()),
      () => tools.write_file!.execute({ path: 'pipe', content: 'x' }, context()),
      () => tools.edit_file!.execute({ path: 'pipe', oldText: 'a', newText: 'b' }, context()),
      () => tools.search_text!.execute({ pattern: 'x', path: 'pipe' }, context()),
    ]) {
      expect((await refused(call())).code).toBe('not_a_file');
    }
    expect(await tools.find_files!.execute({ pattern: '*' }, context())).toBe('ok.txt');
    expect(await tools.search_text!.execute({ pattern: 'needle' }, context())).toBe('ok.txt:1: needle');
    expect(await tools.list_directory!.execute({}, context())).toBe('ok.txt (6 bytes)\npipe (special file)');
    expect((await stat(join(root, 'pipe'))).isFIFO()).toBe(true);
    expect(await readFile(join(root, 'ok.txt'), 'utf8')).toBe('needle');
    expect(await snapshot(outside)).toEqual(before);
  });

  it('a character device (a /dev/null twin) and a unix socket are never read or written', async () => {
    const { root } = await tempTree();
    execFileSync('mknod', [join(root, 'null'), 'c', '1', '3']);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'sock'), resolve));
    try {
      const { tools } = await toolsFor(root);
      for (const path of ['null', 'sock']) {
        expect((await refused(tools.read_file!.execute({ path }, context()))).code).toBe('not_a_file');
        expect((await refused(tools.write_file!.execute({ path, content: 'x' }, context()))).code).toBe('not_a_file');
      }
      expect((await stat(join(root, 'null'))).isCharacterDevice()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a directory where a file is expected, and a file where a directory is expected', async () => {
    const { root, base } = await tempTree({ 'dir/inner.txt': 'x', 'file.txt': 'F' });
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    expect((await refused(tools.write_file!.execute({ path: 'dir', content: 'x' }, context()))).code).toBe(
      'not_a_file',
    );
    expect((await refused(tools.edit_file!.execute({ path: 'dir', oldText: 'a', newText: 'b' }, context()))).code).toBe(
      'not_a_file',
    );
    expect((await refused(tools.write_file!.execute({ path: 'file.txt/x', content: 'x' }, context()))).code).toBe(
      'not_a_directory',
    );
    expect((await refused(tools.list_directory!.execute({ path: 'file.txt' }, context()))).code).toBe(
      'not_a_directory',
    );
    expect((await refused(tools.find_files!.execute({ pattern: 'file.txt/**' }, context()))).code).toBe(
      'not_a_directory',
    );
    expect(await snapshot(base)).toEqual(before);
  });
});

describe('planted git repositories (issue 18 item 2)', () => {
  const pieces = ['evil/HEAD', 'evil/objects/pack.txt', 'evil/refs/heads/main'];

  it.each(pieces)(
    'refuses the write that would complete a repository layout (%s last), creating nothing',
    async (last) => {
      const { root, base } = await tempTree();
      const { tools } = await toolsFor(root);
      for (const path of pieces.filter((piece) => piece !== last)) {
        await tools.write_file!.execute({ path, content: 'ref: refs/heads/main\n' }, context());
      }
      const before = await snapshot(base);
      const error = await refused(tools.write_file!.execute({ path: last, content: 'x' }, context()));
      expect(error.code).toBe('protected_path');
      expect(error.message).toMatch(
        /would give "evil" HEAD, objects\/ and refs\/ together, which git treats as a repository/,
      );
      expect(await snapshot(base)).toEqual(before);
    },
  );

  it('refuses the layout at the root, in any case spelling, and writes racing to complete it', async () => {
    const { root } = await tempTree({ HEAD: 'ref: refs/heads/main\n', 'objects/x': '' });
    const { tools } = await toolsFor(root);
    const error = await refused(tools.write_file!.execute({ path: 'REFS/x', content: '' }, context()));
    expect(error.message).toMatch(/would give the workspace root HEAD, objects\/ and refs\/ together/);
    const racing = await tempTree();
    const { tools: raced } = await toolsFor(racing.root);
    const results = await Promise.allSettled(
      pieces.map((path) => raced.write_file!.execute({ path, content: 'ref: refs/heads/main\n' }, context())),
    );
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
  });

  it('refuses writing into a repository layout that is already there (config, hooks)', async () => {
    const { root, base } = await tempTree({
      'fixtures/bare/HEAD': 'ref: refs/heads/main\n',
      'fixtures/bare/objects/x': '',
      'fixtures/bare/refs/x': '',
    });
    const { tools } = await toolsFor(root);
    const before = await snapshot(base);
    for (const path of ['fixtures/bare/config', 'fixtures/bare/hooks/post-checkout', 'fixtures/bare/HEAD']) {
      const error = await refused(
        tools.write_file!.execute({ path, content: '[core]\n\tfsmonitor = touch pwned\n' }, context()),
      );
      expect(error.message).toMatch(
        /"fixtures\/bare" is a git repository directory \(it holds HEAD, objects\/ and refs\/\)/,
      );
    }
    expect(await snapshot(base)).toEqual(before);
    // Other files beside it stay writable.
    await tools.write_file!.execute({ path: 'fixtures/notes.md', content: 'ok' }, context());
  });

  it('a git preset runs with safety options and environment before the preset arguments', async () => {
    const { root, outside } = await tempTree();
    // A stand-in named git that prints what it was given (one argument per line, then its environment).
    const fakeGit = join(outside, 'git');
    await writeFile(fakeGit, '#!/bin/sh\nfor a in "$@"; do echo "arg $a"; done\nenv | sort\n', { mode: 0o755 });
    const workspace = await Workspace.open(root);
    const tool = commandTool(workspace, { status: { executable: fakeGit, args: ['status', '--short'] } });
    const lines = (await tool.execute({ command: 'status' }, context())).stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('arg '))).toEqual(
      [...GIT_SAFETY_ARGUMENTS, 'status', '--short'].map((arg) => `arg ${arg}`),
    );
    expect(lines).toContain('GIT_CONFIG_NOSYSTEM=1');
    expect(lines).toContain('GIT_TERMINAL_PROMPT=0');
    expect(tool.description).toContain(`(runs ${fakeGit} status --short)`);
  });

  const git = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((path) => existsSync(path));
  if (git === undefined) console.warn('SKIPPED: the real-git planted repository tests need git installed');
  it.skipIf(git === undefined && process.env.CI !== 'true')(
    "with real git: a planted bare repository's fsmonitor never runs from a git status preset",
    async () => {
      const { root, base } = await tempTree({
        'evil/HEAD': 'ref: refs/heads/main\n',
        'evil/objects/info/.keep': '',
        'evil/refs/heads/.keep': '',
      });
      const marker = join(base, 'PWNED');
      await writeFile(
        join(root, 'evil/config'),
        `[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker}; false\n`,
      );
      const workspace = await Workspace.open(root);
      const tool = commandTool(workspace, { status: { executable: 'git', args: ['status', '--short'], cwd: 'evil' } });
      const result = await tool.execute({ command: 'status' }, context());
      expect(result.exitCode).toBe(128);
      expect(result.stderr).toMatch(/cannot use bare repository .* \(safe.bareRepository is 'explicit'\)/);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.skipIf(git === undefined && process.env.CI !== 'true')(
    "with real git: a repository's fsmonitor and hooks never run from a git status preset",
    async () => {
      const { root, base } = await tempTree({ 'a.txt': 'a' });
      execFileSync('git', ['init', '-q', root], { env: { PATH: process.env.PATH ?? '' } });
      const marker = join(base, 'PWNED');
      const hook = join(root, '.git/hooks/post-index-change');
      await writeFile(hook, `#!/bin/sh\ntouch ${marker}.hook\n`, { mode: 0o755 });
      execFileSync('git', ['-C', root, 'config', 'core.fsmonitor', `touch ${marker}; false`]);
      const workspace = await Workspace.open(root);
      const tool = commandTool(workspace, { status: { executable: 'git', args: ['status', '--short'] } });
      const result = await tool.execute({ command: 'status' }, context());
      expect(result).toMatchObject({ exitCode: 0, stdout: '?? a.txt\n' });
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(`${marker}.hook`)).toBe(false);
    },
  );
});

describe('hard links (issue 18 item 11)', () => {
  it('read_file refuses a hard link to a file outside the workspace, like write_file does', async () => {
    const { root, outside } = await tempTree();
    await link(join(outside, 'secret.txt'), join(root, 'innocent.txt'));
    const { tools } = await toolsFor(root);
    for (const call of [
      () => tools.read_file!.execute({ path: 'innocent.txt' }, context()),
      () => tools.write_file!.execute({ path: 'innocent.txt', content: 'x' }, context()),
    ]) {
      const error = await refused(call());
      expect(error.code).toBe('hard_link');
      expect(error.message).toMatch(/^Refused: "innocent.txt" has 2 hard links; /);
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });

  it('search_text skips a hard-linked file and says why; naming it as the path refuses it', async () => {
    const { root, outside } = await tempTree({ 'plain.txt': 'nothing to see' });
    await link(join(outside, 'secret.txt'), join(root, 'innocent.txt'));
    const { tools } = await toolsFor(root);
    expect(await tools.search_text!.execute({ pattern: 'SECRET|nothing' }, context())).toBe(
      'plain.txt:1: nothing to see\n[files skipped: 1 hard-linked (may be files outside the workspace)]',
    );
    const error = await refused(tools.search_text!.execute({ pattern: 'SECRET', path: 'innocent.txt' }, context()));
    expect(error.code).toBe('hard_link');
  });
});

describe('edit_file', () => {
  it('refuses a hard-linked file, leaving both names unchanged', async () => {
    const { root, base } = await tempTree({ 'a.txt': 'hello world' });
    await link(join(root, 'a.txt'), join(root, 'b.txt'));
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    const error = await refused(
      tools.edit_file!.execute({ path: 'b.txt', oldText: 'world', newText: 'there' }, context()),
    );
    expect(error.code).toBe('hard_link');
    expect(error.message).toMatch(/"b.txt" has 2 hard links/);
    expect(await snapshot(base)).toEqual(before);
  });

  it('refuses when the file is replaced between its read and the write (no lost update)', async () => {
    const { root } = await tempTree({ 'f.txt': 'version 1\n' });
    const workspace = await Workspace.open(root);
    // A sandbox seam that lets another writer replace the file right after edit_file has read it.
    const racing: WorkspaceOperations = {
      maxReadBytes: workspace.maxReadBytes,
      maxWriteBytes: workspace.maxWriteBytes,
      isProtected: (path) => workspace.isProtected(path),
      readFile: async (path) => {
        const bytes = await workspace.readFile(path);
        await writeFile(join(root, 'other.tmp'), 'version 2 by someone else\n');
        await rename(join(root, 'other.tmp'), join(root, 'f.txt'));
        return bytes;
      },
      writeFile: (...args) => workspace.writeFile(...args),
      listDirectory: (...args) => workspace.listDirectory(...args),
      walk: (...args) => workspace.walk(...args),
    };
    const edit = byName(workspaceTools(racing)).edit_file!;
    const error = await refused(edit.execute({ path: 'f.txt', oldText: 'version 1', newText: 'edited' }, context()));
    expect(error.code).toBe('changed_during_operation');
    expect(await readFile(join(root, 'f.txt'), 'utf8')).toBe('version 2 by someone else\n');
  });

  it.each([['$&'], ["$'"], ['$`'], ['$$'], ['$1'], ['$<name>'], ["$&$&$`$'$$"]])(
    'inserts %s literally',
    async (replacement) => {
      const { root } = await tempTree({ 'f.txt': 'before TARGET after' });
      const { tools } = await toolsFor(root);
      await tools.edit_file!.execute({ path: 'f.txt', oldText: 'TARGET', newText: replacement }, context());
      expect(await readFile(join(root, 'f.txt'), 'utf8')).toBe(`before ${replacement} after`);
    },
  );

  it('counts overlapping occurrences and writes nothing when there are several', async () => {
    const { root, base } = await tempTree({ 'f.txt': 'aaa' });
    const before = await snapshot(base);
    const { tools } = await toolsFor(root);
    const error = await refused(tools.edit_file!.execute({ path: 'f.txt', oldText: 'aa', newText: 'b' }, context()));
    expect(error.message).toMatch(/occurs 2 times/);
    expect(await snapshot(base)).toEqual(before);
  });
});

describe('find_files and search_text bounds', () => {
  // Was flaky under load (item 8). Deterministic now: no time budget can stop it first, and it names the
  // exact entry where it stopped (the 1000th visit is "many" itself plus 999 files, in name order).
  it('stops walking a huge tree at maxEntries and says so, naming where', async () => {
    const { root } = await tempTree();
    await mkdir(join(root, 'many'));
    const names = Array.from({ length: 1200 }, (_, index) => `f${index}.txt`);
    for (const name of names) await writeFile(join(root, 'many', name), '');
    const workspace = await Workspace.open(root);
    const tools = byName(
      workspaceTools(workspace, {
        find: { maxEntries: 1000, maxResults: 5000, walkTimeBudgetMs: Number.POSITIVE_INFINITY },
      }),
    );
    const lines = String(await tools.find_files!.execute({ pattern: '**/*.txt' }, context())).split('\n');
    const sorted = [...names].sort();
    expect(lines.slice(0, -1)).toEqual(sorted.slice(0, 999).map((name) => `many/${name}`));
    expect(lines.at(-1)).toBe(
      `[stopped after visiting 1000 entries, at "many/${sorted[999]}": it and the entries after it (in name order) were not searched; use a narrower pattern or path]`,
    );
  });

  it('stops at the walk time budget and names where; a zero budget stops at the first entry', async () => {
    const { root } = await tempTree({ 'a.txt': 'hit', 'b.txt': 'hit' });
    const workspace = await Workspace.open(root);
    const tools = byName(workspaceTools(workspace, { find: { walkTimeBudgetMs: 0 }, search: { walkTimeBudgetMs: 0 } }));
    expect(await tools.find_files!.execute({ pattern: '*.txt' }, context())).toBe(
      'No files match "*.txt".\n[stopped after 0 ms, at "a.txt": it and the entries after it (in name order) were not searched; use a narrower pattern or path]',
    );
    expect(await tools.search_text!.execute({ pattern: 'hit' }, context())).toBe(
      'No matches for /hit/ in 0 files.\n[stopped after 0 ms, at "a.txt": it and the entries after it (in name order) were not searched; use a narrower pattern or path]',
    );
  });

  it('says which directories were too deep to walk instead of "no match"', async () => {
    const { root } = await tempTree({ [`${'d/'.repeat(5)}deep.txt`]: 'needle' });
    const workspace = await Workspace.open(root);
    const tools = byName(workspaceTools(workspace, { find: { maxDepth: 3 } }));
    expect(await tools.find_files!.execute({ pattern: '**/deep.txt' }, context())).toBe(
      'No files match "**/deep.txt".\n[directories more than 3 levels deep were not searched (the first: "d/d/d/d")]',
    );
  });

  it('a walk checks the signal at every entry: an abort mid-walk throws, naming where', async () => {
    const { root } = await tempTree(Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`f${index}`, ''])));
    const workspace = await Workspace.open(root);
    const controller = new AbortController();
    let seen = 0;
    const error = await refused(
      workspace.walk(
        undefined,
        () => {
          if (++seen === 10) controller.abort();
          return undefined;
        },
        { maxEntries: 1000, maxDepth: 8, signal: controller.signal },
      ),
    );
    expect(error.code).toBe('aborted');
    expect(seen).toBe(10);
    const tools = byName(workspaceTools(workspace));
    for (const name of ['find_files', 'search_text']) {
      const aborted = new AbortController();
      aborted.abort();
      const args = name === 'find_files' ? { pattern: '**/*' } : { pattern: 'x' };
      expect((await refused(tools[name]!.execute(args, context(aborted.signal)))).code).toBe('aborted');
    }
  });

  // Issue 18 item 4, scaled down: a 246-character glob (8 brace groups and 100 wildcards) took 24 ms per
  // path, minutes over 20,000 files. Its cost is bounded when it is compiled, and per path when it runs.
  it('refuses a glob whose expansion is too large to match cheaply', async () => {
    const { root } = await tempTree({ 'a.txt': '' });
    const { tools } = await toolsFor(root);
    const glob = `**/${'{a,b}'.repeat(8)}${'*x'.repeat(100)}.ts`;
    for (const call of [
      () => tools.find_files!.execute({ pattern: glob }, context()),
      () => tools.search_text!.execute({ pattern: 'a', glob }, context()),
    ]) {
      const error = await refused(call());
      expect(error.code).toBe('invalid_arguments');
      expect(error.message).toMatch(
        /expands to 54272 wildcards and characters across 256 patterns, above the limit of 2048; use fewer braces or wildcards/,
      );
    }
  });

  it.each(['?*?*?*?*?*?*?*?*?*?*!', '*a*a*a*a*a*a*a*a*a*a*a*a*b', '**/*a*a*a*a*a*a*a*a*a*a*a*a*b'])(
    'a glob that would backtrack catastrophically (%s) is matched in linear time',
    async (pattern) => {
      const name = 'a'.repeat(200);
      const hit = `${'a'.repeat(12)}b`;
      const { root } = await tempTree({ [name]: 'aaa', [`x/${name}`]: 'aaa', [hit]: 'aaa' });
      const { tools } = await toolsFor(root);
      const expected = pattern.endsWith('!') ? 'No files match' : hit;
      expect(String(await tools.find_files!.execute({ pattern }, context()))).toContain(expected);
      const search = String(await tools.search_text!.execute({ pattern: 'a', glob: pattern }, context()));
      expect(search).toContain(pattern.endsWith('!') ? 'No matches' : `${hit}:1: aaa`);
    },
  );

  it('refuses a brace pattern that expands to too many alternatives', async () => {
    const { root } = await tempTree({ 'a.txt': '' });
    const { tools } = await toolsFor(root);
    const error = await refused(
      tools.find_files!.execute({ pattern: '{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}/*' }, context()),
    );
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toMatch(/more than 256/);
  });

  it.each(['(a|a)*$', '(a*)*b', '^(([a-z])+.)+[A-Z]([a-z])+$', '^(\\w+\\s?)*$'])(
    'a regex that blows up (%s) is stopped at the deadline',
    async (pattern) => {
      const { root } = await tempTree({ 'f.txt': `${'a'.repeat(40)}!` });
      const workspace = await Workspace.open(root);
      const tools = byName(workspaceTools(workspace, { search: { timeoutMs: 300 } }));
      const error = await refused(tools.search_text!.execute({ pattern }, context()));
      expect(error.code).toBe('search_timeout');
    },
  );
});

describe('commandTool with hostile parameters', () => {
  async function echoTool(paramSchema: Record<string, unknown> = { type: 'string' }) {
    const { root } = await tempTree();
    const workspace = await Workspace.open(root);
    return {
      root,
      tool: commandTool(workspace, {
        args: { executable: 'printf', args: ['<%s>'], params: { value: paramSchema } },
        env: { executable: 'env', env: ['BRIDLE_RT_ALLOWED', 'BRIDLE_RT_UNSET'] },
        sleep: { executable: 'sleep', args: ['5'], timeoutMs: 10_000 },
      }),
    };
  }

  it('a value with newlines, quotes and globs is one argv entry', async () => {
    const { tool } = await echoTool();
    const value = 'line1\nline2\r\n\'"*?$(id)';
    expect((await tool.execute({ command: 'args', params: { value } }, context())).stdout).toBe(`<${value}>`);
  });

  it.each([
    ['a\u0000b', /NUL byte/],
    ['-rf', /starts with "-"/],
    ['--output=/etc/passwd', /starts with "-"/],
    ['x'.repeat(4097), /0 to 4096 characters long, got 4097/],
  ])('refuses the value %j', async (value, message) => {
    const { tool } = await echoTool();
    const error = await refused(tool.execute({ command: 'args', params: { value } }, context()));
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toMatch(message);
  });

  it('an argument over the kernel limit fails clearly instead of crashing', async () => {
    const { tool } = await echoTool({ type: 'string', maxLength: 300_000 });
    const error = await refused(tool.execute({ command: 'args', params: { value: 'x'.repeat(200_000) } }, context()));
    expect(error.code).toBe('command_failed');
    expect(error.message).toMatch(/could not start: spawn E2BIG \(the arguments or environment are too large/);
  });

  it('the child sees only PATH and the allow-listed variables that are set', async () => {
    process.env.BRIDLE_RT_ALLOWED = 'yes';
    process.env.BRIDLE_RT_SECRET = 'leaked';
    try {
      const { tool } = await echoTool();
      const result = await tool.execute({ command: 'env' }, context());
      expect(result.stdout.trim().split('\n').sort()).toEqual(['BRIDLE_RT_ALLOWED=yes', `PATH=${process.env.PATH}`]);
    } finally {
      delete process.env.BRIDLE_RT_ALLOWED;
      delete process.env.BRIDLE_RT_SECRET;
    }
  });

  it('an abort while the command is starting runs nothing', async () => {
    const { root } = await tempTree();
    const workspace = await Workspace.open(root);
    const tool = commandTool(workspace, { make: { executable: 'touch', args: ['made'] } });
    const controller = new AbortController();
    const pending = tool.execute({ command: 'make' }, context(controller.signal));
    controller.abort(); // execute is now awaiting the workspace's directory checks
    expect((await refused(pending)).code).toBe('aborted');
    await expect(stat(join(root, 'made'))).rejects.toThrow(/ENOENT/);
  });
});

describe('commandTool path parameters (issue 18 item 3)', () => {
  async function catTool(cwd?: string) {
    const tree = await tempTree({ 'notes.txt': 'NOTES', 'sub/inner.txt': 'INNER', '.env': 'KEY=1' });
    await symlink(join(tree.outside, 'secret.txt'), join(tree.root, 'escape.txt'));
    await symlink(tree.outside, join(tree.root, 'escape-dir'));
    await link(join(tree.outside, 'secret.txt'), join(tree.root, 'twin.txt'));
    const workspace = await Workspace.open(tree.root);
    const tool = commandTool(workspace, {
      // printf shows the argv entry the program got; cat reads it from the preset's cwd.
      show: {
        executable: 'printf',
        args: ['[%s]'],
        params: { file: { type: 'string', format: WORKSPACE_PATH_FORMAT } },
        ...(cwd ? { cwd } : {}),
      },
      cat: {
        executable: 'cat',
        args: ['--'],
        params: { file: { type: 'string', format: 'workspace-path' } },
        ...(cwd ? { cwd } : {}),
      },
    });
    return { ...tree, tool };
  }

  it.each([
    ['/etc/passwd', 'invalid_path', /"\/etc\/passwd" is absolute/],
    ['../outside/secret.txt', 'invalid_path', /contains "\.\."/],
    ['sub/../../outside/secret.txt', 'invalid_path', /contains "\.\."/],
    ['~/.ssh/id_rsa', 'invalid_path', /is absolute/],
    ['escape.txt', 'symlink', /"escape.txt" is a symbolic link/],
    ['escape-dir/secret.txt', 'symlink', /"escape-dir" is a symbolic link/],
    ['twin.txt', 'hard_link', /"twin.txt" has 2 hard links/],
    ['.env', 'protected_path', /".env" is a protected path/],
    ['.git/config', 'protected_path', /protected path/],
    ['notes.txt\u202e', 'invalid_path', /control or invisible character/],
    ['.', 'invalid_path', /names the workspace root/],
    ['-n', 'invalid_arguments', /starts with "-"/],
  ])('refuses %s as a path parameter, running nothing', async (file, code, message) => {
    const { tool } = await catTool();
    const error = await refused(tool.execute({ command: 'cat', params: { file } }, context()));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    if (code === 'invalid_path') expect(error.message).toMatch(/params\.file/);
  });

  it('passes a jailed path normalized, relative to the preset cwd; it may name a file to be created', async () => {
    const atRoot = await catTool();
    expect((await atRoot.tool.execute({ command: 'cat', params: { file: './/notes.txt' } }, context())).stdout).toBe(
      'NOTES',
    );
    expect(
      (await atRoot.tool.execute({ command: 'show', params: { file: 'sub/./inner.txt' } }, context())).stdout,
    ).toBe('[sub/inner.txt]');
    expect((await atRoot.tool.execute({ command: 'show', params: { file: 'new/file.txt' } }, context())).stdout).toBe(
      '[new/file.txt]',
    );
    const inSub = await catTool('sub');
    expect((await inSub.tool.execute({ command: 'cat', params: { file: 'notes.txt' } }, context())).stdout).toBe(
      'NOTES',
    );
    expect((await inSub.tool.execute({ command: 'show', params: { file: 'notes.txt' } }, context())).stdout).toBe(
      '[../notes.txt]',
    );
    expect((await inSub.tool.execute({ command: 'show', params: { file: 'sub/inner.txt' } }, context())).stdout).toBe(
      '[inner.txt]',
    );
    expect((await inSub.tool.execute({ command: 'show', params: { file: 'sub' } }, context())).stdout).toBe('[.]');
  });

  it('says in the description which parameters are workspace paths', async () => {
    const { tool } = await catTool();
    expect(tool.description).toContain('params: file (a path relative to the workspace root)');
  });

  it('refuses at creation an unknown format, and a workspace-path parameter without a path check', () => {
    const workspace = { withDirectory: async () => undefined as never };
    expect(() =>
      commandTool(workspace, { x: { executable: 'true', params: { a: { type: 'string', format: 'uri' } } } }),
    ).toThrow(
      'Preset "x", parameter "a": "format" "uri" is not supported; the only format is "workspace-path" (a path inside the workspace).',
    );
    expect(() =>
      commandTool(workspace, {
        x: { executable: 'true', params: { a: { type: 'string', format: 'workspace-path' } } },
      }),
    ).toThrow(/has no checkPath\(\)/);
  });
});

describe('commandTool process trees', () => {
  async function run(script: string, preset: { timeoutMs?: number; maxOutputBytes?: number } = {}) {
    const { root } = await tempTree();
    const workspace = await Workspace.open(root);
    const tool = commandTool(
      workspace,
      { script: { executable: 'sh', args: ['-c', script], ...preset } },
      { killGraceMs: 200 },
    );
    const result = await tool.execute({ command: 'script' }, context());
    const pids = (await readFile(join(root, 'pids.txt'), 'utf8').catch(() => ''))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
    return { result, pids };
  }

  it('a grandchild that double-forks (reparented to init, same group) is gone after the timeout', async () => {
    const { result, pids } = await run("( sh -c 'echo $$ >> pids.txt; exec sleep 30' & ) ; sleep 30", {
      timeoutMs: 400,
    });
    expect(result.timedOut).toBe(true);
    expect(pids).toHaveLength(1);
    expect(await isRunning(pids[0]!)).toBe(false);
  });

  it('a double-forked grandchild that ignores SIGTERM is killed after the grace period', async () => {
    const { result, pids } = await run(
      '( sh -c \'trap "" TERM; echo $$ >> pids.txt; while :; do sleep 1; done\' & ) ; while [ ! -s pids.txt ]; do sleep 0.05; done; echo started',
      { timeoutMs: 5_000 },
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
    expect(pids).toHaveLength(1);
    expect(await isRunning(pids[0]!)).toBe(false);
  });

  it('a grandchild that escapes the group with setsid and keeps the pipes open does not hang the run', async () => {
    // Known limit (see the report): a new session is out of reach of the process-group kill.
    const { result, pids } = await run('setsid sleep 30 & echo $! > pids.txt; echo done');
    try {
      expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', timedOut: false });
    } finally {
      for (const pid of pids) if (await isRunning(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('an output flood is capped per stream with a marker, and memory stays bounded', async () => {
    const { result } = await run('head -c 5000000 /dev/zero | tr "\\0" x; head -c 3000000 /dev/zero >&2', {
      maxOutputBytes: 1000,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${'x'.repeat(1000)}\n[output truncated: 4999000 more bytes not shown]`);
    expect(result.stderr).toMatch(/\n\[output truncated: 2999000 more bytes not shown\]$/);
  });

  it('an endless flood ends at the timeout, capped', async () => {
    const { result } = await run('yes', { timeoutMs: 300, maxOutputBytes: 10 });
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toMatch(/^y\ny\ny\ny\ny\n\n\[output truncated: \d+ more bytes not shown\]$/);
  });
});
