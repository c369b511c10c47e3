// A throwaway npm registry on loopback for the release rehearsal: Verdaccio 5 (the line that runs on Node 20),
// storage in a temp folder. Bridle's own packages (@bridle/* and bridle) live only here: they are never
// looked up upstream, so what the rehearsal installs is what it published. Every other package is proxied
// from the npm registry the machine already uses (read-only: publishing anything else is refused).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { start, stopGroup } from './process-group.mjs';

const root = path.resolve(import.meta.dirname, '..');
const verdaccioBin = path.join(root, 'node_modules', 'verdaccio', 'bin', 'verdaccio');

/** A free TCP port on 127.0.0.1 (asked from the OS). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function config({ storage, htpasswd, uplink }) {
  const local = '    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n';
  return `# written by scripts/local-registry.mjs for one release rehearsal
storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(htpasswd)}
    max_users: 1
uplinks:
  upstream:
    url: ${JSON.stringify(uplink)}
    timeout: 120s
    max_fails: 20
    fail_timeout: 10s
packages:
  '@bridle/*':
${local}  'bridle':
${local}  '**':
    access: $all
    publish: nobody-may-publish-here
    unpublish: nobody-may-publish-here
    proxy: upstream
web:
  enable: false
middlewares:
  audit:
    enabled: false
max_body_size: 50mb
log: { type: stdout, format: pretty, level: warn }
`;
}

async function waitForPing(url, child, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const response = await fetch(`${url}-/ping`, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const log = fs.existsSync(logFile)
    ? fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).join('\n')
    : '';
  throw new Error(`Verdaccio did not answer ${url}-/ping within ${timeoutMs / 1000} s:\n${log}`);
}

/**
 * Starts Verdaccio in `dir` (config, storage, htpasswd and log go there) and registers one user.
 * @param {{ dir: string, uplink: string }} options `uplink`: the registry other packages are proxied from.
 * @returns {Promise<{ url: string, token: string, logFile: string, stop: () => Promise<void> }>} `url` ends with `/`.
 */
export async function startLocalRegistry({ dir, uplink }) {
  const storage = path.join(dir, 'storage');
  const htpasswd = path.join(dir, 'htpasswd');
  const configFile = path.join(dir, 'config.yaml');
  const logFile = path.join(dir, 'verdaccio.log');
  fs.mkdirSync(storage, { recursive: true });
  fs.writeFileSync(configFile, config({ storage, htpasswd, uplink }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = start(process.execPath, [verdaccioBin, '--config', configFile, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production' },
    logFile,
  });
  await waitForPing(url, child, logFile, 120_000);

  // `npm adduser` over HTTP: the first PUT creates the user and answers with a token.
  const name = 'rehearsal';
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: `pw-${process.pid}-${port}`, type: 'user', roles: [] }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok || typeof body.token !== 'string') {
    await stopGroup(child);
    throw new Error(`Verdaccio refused to create a user (HTTP ${response.status}): ${JSON.stringify(body)}`);
  }
  return { url, token: body.token, logFile, stop: () => stopGroup(child) };
}
