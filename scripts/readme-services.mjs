// The services a README example may need (```ts run needs=redis), checked before it runs: a missing one
// skips the example with one line, except under CI=true, where it fails (as the packages' service tests do).
import { spawnSync } from 'node:child_process';
import net from 'node:net';

/**
 * The Redis an example uses: BRIDLE_REDIS_URL, else BRIDLE_TEST_REDIS_URL (the tests' variable), else the
 * machine's. The example gets it as BRIDLE_REDIS_URL.
 * @param {Record<string, string | undefined>} env
 */
export function redisUrlOf(env) {
  return env.BRIDLE_REDIS_URL ?? env.BRIDLE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/**
 * Resolves undefined when Redis answers PING at `url` within 3 s, else a sentence saying what is missing.
 * @param {string} url
 * @returns {Promise<string | undefined>}
 */
function redisProblem(url) {
  let host = '127.0.0.1';
  let port = 6379;
  try {
    const parsed = new URL(url);
    host = parsed.hostname || host;
    port = Number(parsed.port || 6379);
  } catch {
    return Promise.resolve(`BRIDLE_REDIS_URL ${JSON.stringify(url)} is not a redis:// URL`);
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (problem) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => done(`no Redis at ${host}:${port} (no answer in 3 s)`), 3000);
    socket.on('error', (error) => done(`no Redis at ${host}:${port} (${error.message})`));
    socket.on('connect', () => socket.write('PING\r\n'));
    // +PONG, or an error such as -NOAUTH: either way a Redis answers there.
    socket.once('data', (chunk) =>
      done(/^[+-]/.test(chunk.toString()) ? undefined : `no Redis at ${host}:${port} (not a Redis reply)`),
    );
  });
}

/**
 * What is missing of `needs` (one sentence per service), empty when all are there.
 * @param {string[]} needs
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<string[]>}
 */
export async function missingServices(needs, env) {
  const problems = [];
  for (const need of needs) {
    if (need === 'redis') {
      const problem = await redisProblem(redisUrlOf(env));
      if (problem) problems.push(`${problem}; set BRIDLE_REDIS_URL`);
    } else if (need === 'bwrap') {
      const probe = spawnSync('bwrap', ['--version'], { encoding: 'utf8' });
      if (probe.status !== 0) problems.push('no bubblewrap (bwrap) on PATH; apt-get install bubblewrap');
    } else problems.push(`unknown service "${need}" in needs= (known: redis, bwrap)`);
  }
  return problems;
}
